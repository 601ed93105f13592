import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { formatCheckpoint } from '../../shared/domain/tlog/checkpoint.js';
import { cosignatureMessage, cosignatureSignature } from '../../shared/domain/tlog/cosignature.js';
import { encodeBase64 } from '../../shared/domain/tlog/encoding.js';
import { leafHash } from '../../shared/domain/tlog/hash.js';
import {
  cosignatureKeyId,
  ecdsaKeyId,
  ed25519KeyId,
  formatNote,
  formatVkey,
  SIG_COSIGNATURE_V1,
  type NoteSignature,
} from '../../shared/domain/tlog/note.js';
import { appendLeaves, consistencyProof, inclusionProof } from '../../shared/domain/tlog/tree.js';
import type { EvidenceLog } from '../../shared/ledger/evidence-bundle.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { MemoryTiles } from '../unit/tlog/memory-tiles.js';
import type { TestKey } from './evidence-fixtures.js';

/** Ed25519 keys, trees, signed checkpoints and the `log` part of bundles, for the verifier tests (issue 31). */

export interface EdKey {
  /** The 32 raw public key bytes. */
  publicKey: Uint8Array;
  privateKey: KeyObject;
}

export function edKey(): EdKey {
  const pair = generateKeyPairSync('ed25519');
  const spki = pair.publicKey.export({ type: 'spki', format: 'der' });
  return { publicKey: new Uint8Array(spki.subarray(spki.length - 32)), privateKey: pair.privateKey };
}

export const ORIGIN = (firmId: string) => `ledger.example.test/ledger/${firmId}`;

/** The tree of the records' chainHashes (leaf i = record i + 1), in memory tiles. */
export async function treeOf(
  records: readonly LedgerRecord[],
): Promise<{ tiles: MemoryTiles; root: Uint8Array }> {
  const tiles = new MemoryTiles();
  const leaves = records.map((r) => leafHash(Buffer.from(r.chainHash, 'hex')));
  const result = await appendLeaves(tiles, 0, leaves);
  tiles.write(result.tiles);
  return { tiles, root: result.root };
}

/** A checkpoint note signed by the ledger key (0x02) and the checkpoint key (0x01), plus witness cosignatures. */
export function signedCheckpoint(
  origin: string,
  size: number,
  root: Uint8Array,
  ecdsa: TestKey,
  ed: EdKey,
  witnesses: readonly { name: string; key: EdKey }[] = [],
): string {
  const text = formatCheckpoint({ origin, size, root, extensions: [] });
  const spki = Buffer.from(ecdsa.publicKey, 'base64');
  const signatures: NoteSignature[] = [
    { name: origin, keyId: ecdsaKeyId(spki), signature: sign('sha256', Buffer.from(text), ecdsa.privateKey) },
    {
      name: origin,
      keyId: ed25519KeyId(origin, ed.publicKey),
      signature: sign(null, Buffer.from(text), ed.privateKey),
    },
    ...witnesses.map((w) => ({
      name: w.name,
      keyId: cosignatureKeyId(w.name, w.key.publicKey),
      signature: cosignatureSignature(
        1_780_000_000,
        sign(null, cosignatureMessage(text, 1_780_000_000), w.key.privateKey),
      ),
    })),
  ];
  return formatNote(text, signatures);
}

export const witnessVkey = (w: { name: string; key: EdKey }) =>
  formatVkey(w.name, SIG_COSIGNATURE_V1, w.key.publicKey);

/** The `log` part of a bundle of `records` against the checkpoint of the first `size` records of `chain`. */
export async function logOf(
  chain: readonly LedgerRecord[],
  records: readonly LedgerRecord[],
  options: {
    size?: number;
    ecdsa: TestKey;
    ed: EdKey;
    edValidFrom?: string;
    edValidUntil?: string | null;
    signedAt?: string;
    witnesses?: readonly { name: string; key: EdKey }[];
    consistencyFrom?: number;
  },
): Promise<EvidenceLog> {
  const size = options.size ?? chain.length;
  const firmId = chain[0]!.firmId;
  const origin = ORIGIN(firmId);
  const { tiles, root } = await treeOf(chain.slice(0, size));
  const covered = records.filter((r) => r.sequenceNumber <= size);
  return {
    origin,
    checkpoint: signedCheckpoint(origin, size, root, options.ecdsa, options.ed, options.witnesses),
    signedAt: options.signedAt ?? '2026-06-01T00:00:00.000Z',
    checkpointKeys: [
      {
        publicKey: encodeBase64(options.ed.publicKey),
        algorithm: 'ED25519_SHA_512',
        keySpec: 'ECC_NIST_EDWARDS25519',
        validFrom: options.edValidFrom ?? '2026-01-01T00:00:00.000Z',
        validUntil: options.edValidUntil ?? null,
      },
    ],
    proofs: await Promise.all(
      covered.map(async (r) => ({
        sequenceNumber: r.sequenceNumber,
        hashes: (await inclusionProof(tiles, r.sequenceNumber - 1, size)).map(encodeBase64),
      })),
    ),
    uncoveredFromSequence: records.find((r) => r.sequenceNumber > size)?.sequenceNumber ?? null,
    consistency:
      options.consistencyFrom === undefined
        ? null
        : {
            fromSize: options.consistencyFrom,
            hashes: (await consistencyProof(tiles, options.consistencyFrom, size)).map(encodeBase64),
          },
  };
}
