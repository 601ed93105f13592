import { genesisHistory } from '../ledger/key-rotation.js';
import { fingerprintOf, type SigningKeyHistory } from '../ledger/key-history.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import type { Signer } from '../ports/signer.js';
import { ENV, intEnv } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { readKeyHistory, type StoredKeyHistory } from '../store/signing-key-store.js';

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
