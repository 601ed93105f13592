import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { formatCheckpoint } from '../../../shared/domain/tlog/checkpoint.js';
import { leafHash } from '../../../shared/domain/tlog/hash.js';
import {
  ecdsaKeyId,
  ed25519KeyId,
  formatNote,
  formatVkey,
  SIG_ECDSA,
  SIG_ED25519,
  type NoteSignature,
} from '../../../shared/domain/tlog/note.js';
import { appendLeaves, consistencyProof, treeRoot } from '../../../shared/domain/tlog/tree.js';
import { MemoryTiles } from './memory-tiles.js';

/**
 * A log for the witness tests, made like the ledger's: a tile-backed tree (the core library), checkpoints signed
 * with a locally generated ECDSA P-256 key (type 0x02, as KMS signs) and an Ed25519 key (type 0x01). `fork()`
 * copies the log so far, to write another history after the same prefix.
 */
export class FixtureLog {
  readonly tiles = new MemoryTiles();
  size = 0;
  private readonly ed25519: { privateKey: KeyObject; raw: Uint8Array };
  private readonly p256: { privateKey: KeyObject; spki: Uint8Array };

  constructor(
    readonly origin: string,
    keys?: { ed25519: FixtureLog['ed25519']; p256: FixtureLog['p256'] },
  ) {
    if (keys) {
      this.ed25519 = keys.ed25519;
      this.p256 = keys.p256;
    } else {
      const ed = generateKeyPairSync('ed25519');
      const raw = new Uint8Array(ed.publicKey.export({ format: 'der', type: 'spki' })).slice(-32);
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const spki = new Uint8Array(ec.publicKey.export({ format: 'der', type: 'spki' }));
      this.ed25519 = { privateKey: ed.privateKey, raw };
      this.p256 = { privateKey: ec.privateKey, spki };
    }
  }

  get ed25519Vkey(): string {
    return formatVkey(this.origin, SIG_ED25519, this.ed25519.raw);
  }

  get ecdsaVkey(): string {
    return formatVkey(this.origin, SIG_ECDSA, this.p256.spki);
  }

  /** Appends `count` leaves; `seed` makes another history's leaves differ. */
  async append(count: number, seed = 'main'): Promise<void> {
    const leaves = Array.from({ length: count }, (_, i) =>
      leafHash(
        createHash('sha256')
          .update(`${seed} ${this.size + i}`)
          .digest(),
      ),
    );
    const result = await appendLeaves(this.tiles, this.size, leaves);
    this.tiles.write(result.tiles);
    this.size = result.size;
  }

  async text(size = this.size): Promise<string> {
    return formatCheckpoint({
      origin: this.origin,
      size,
      root: await treeRoot(this.tiles, size),
      extensions: [],
    });
  }

  /** The signed checkpoint of `size` (default: the latest), with both log signatures or the chosen ones. */
  async checkpoint(size = this.size, types: readonly number[] = [SIG_ECDSA, SIG_ED25519]): Promise<string> {
    const text = await this.text(size);
    return formatNote(
      text,
      types.map((t) => this.signature(text, t)),
    );
  }

  signature(text: string, type: number): NoteSignature {
    if (type === SIG_ECDSA) {
      const der = new Uint8Array(sign('sha256', Buffer.from(text), this.p256.privateKey));
      return { name: this.origin, keyId: ecdsaKeyId(this.p256.spki), signature: der };
    }
    const sig = new Uint8Array(sign(null, Buffer.from(text), this.ed25519.privateKey));
    return { name: this.origin, keyId: ed25519KeyId(this.origin, this.ed25519.raw), signature: sig };
  }

  consistency(oldSize: number, newSize = this.size) {
    return consistencyProof(this.tiles, oldSize, newSize);
  }

  /** An empty log with the same origin and keys: the log's keys writing another history from the start. */
  sameKeys(): FixtureLog {
    return new FixtureLog(this.origin, { ed25519: this.ed25519, p256: this.p256 });
  }

  /** A copy with the same keys and the same leaves so far: append to it to write another history after them. */
  fork(): FixtureLog {
    const copy = this.sameKeys();
    for (const [key, data] of this.tiles.tiles) copy.tiles.tiles.set(key, data);
    copy.size = this.size;
    return copy;
  }
}

/** The body of a C2SP tlog-witness add-checkpoint request. */
export function addCheckpointBody(oldSize: number, proof: readonly Uint8Array[], checkpoint: string): string {
  return `old ${oldSize}\n${proof.map((h) => `${Buffer.from(h).toString('base64')}\n`).join('')}\n${checkpoint}`;
}
