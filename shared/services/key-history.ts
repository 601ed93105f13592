import { genesisHistory } from '../ledger/key-rotation.js';
import { createHash } from 'node:crypto';
import {
  checkpointKeyWindows,
  fingerprintOf,
  type CheckpointKeyEntry,
  type SigningKeyHistory,
} from '../ledger/key-history.js';
import type { NoteSigner } from '../ports/note-signer.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import type { Signer } from '../ports/signer.js';
import { ENV, intEnv } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import {
  putCheckpointKey,
  readCheckpointKeys,
  readKeyHistory,
  type StoredKeyHistory,
} from '../store/signing-key-store.js';

/**
 * The signing-key history as this instance sees it (issue 15): read from the ledger table
 * (shared/store/signing-key-store.ts) and kept for KEY_HISTORY_TTL_MS (default 10 s) per instance, so a Lambda
 * pays one small Query per TTL, not per request. A rotation takes effect after a lead time longer than the
 * TTL (docs/architecture.md §5 "Signing keys"), so every instance knows the new key before its window opens.
 * Before the first rotation nothing is stored and the history is the genesis version: the stack's first key.
 */
const cache = new WeakMap<Deps, { until: number; value: Promise<StoredKeyHistory> }>();

export function keyHistoryTtlMs(): number {
  return intEnv(ENV.keyHistoryTtlMs, 10_000);
}

/** The stored history, or the genesis version derived from the first key when none is stored yet. */
export async function loadKeyHistory(deps: Deps): Promise<StoredKeyHistory> {
  const stored = await readKeyHistory(deps);
  if (stored) return stored;
  const publicKey = await publicKeyBase64(deps.signer);
  return {
    history: genesisHistory(publicKey),
    keyIds: { [fingerprintOf(publicKey)]: deps.signer.keyId },
    writtenAt: new Date(0).toISOString(),
  };
}

/** The history and key ids, cached per instance for the TTL. */
export function currentKeys(deps: Deps): Promise<StoredKeyHistory> {
  const now = Date.now();
  const cached = cache.get(deps);
  if (cached && cached.until > now) return cached.value;
  const value = loadKeyHistory(deps);
  cache.set(deps, { until: now + keyHistoryTtlMs(), value });
  value.catch(() => cache.delete(deps));
  return value;
}

/** The public history, exactly what `/.well-known/signing-keys` publishes. */
export async function signingKeyHistory(deps: Deps): Promise<SigningKeyHistory> {
  return (await currentKeys(deps)).history;
}

/** The signer of a key of the history, by fingerprint. */
export function signerOf(deps: Deps, stored: StoredKeyHistory, fingerprint: string): Signer {
  const keyId = stored.keyIds[fingerprint];
  if (!keyId) throw new Error(`No signer is known for signing key ${fingerprint}`);
  return deps.signerFor(keyId);
}

/** The log's checkpoint keys with their windows (issue 31), oldest first: what a verifier needs beside the history. */
export async function checkpointKeyHistory(deps: Deps): Promise<CheckpointKeyEntry[]> {
  return checkpointKeyWindows(await readCheckpointKeys(deps));
}

const registered = new WeakMap<NoteSigner, Promise<void>>();

/**
 * Makes sure the checkpoint key `signer` holds is the current entry of the checkpoint-key history before it signs:
 * registered from now on when it is not the latest key (its first checkpoint, or a new CHECKPOINT_KEY_ID), which
 * ends the previous key's window. Once per signer and instance.
 */
export function registerCheckpointKey(deps: Deps, signer: NoteSigner): Promise<void> {
  let done = registered.get(signer);
  if (!done) {
    done = (async () => {
      const publicKey = Buffer.from(await signer.publicKey()).toString('base64');
      const windows = checkpointKeyWindows(await readCheckpointKeys(deps));
      if (windows.at(-1)?.publicKey === publicKey) return;
      const digest = createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
      await putCheckpointKey(
        deps,
        { publicKey, validFrom: deps.clock.now().toISOString(), signerKeyId: signer.keyId },
        digest,
      );
    })();
    registered.set(signer, done);
    done.catch(() => registered.delete(signer));
  }
  return done;
}
