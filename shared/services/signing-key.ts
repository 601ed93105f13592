import { SIGNING_ALGORITHM, SIGNING_KEY_SPEC } from '../ports/signer.js';
import { currentKeyAt } from '../ledger/key-rotation.js';
import type { Deps } from '../runtime/deps.js';
import { signingKeyHistory } from './key-history.js';

/**
 * What /.well-known/signing-key publishes: the key that signs records stamped now (the key history's entry
 * whose window holds the current instant; /.well-known/signing-keys has every key).
 */
export async function publishedSigningKey(deps: Deps) {
  const history = await signingKeyHistory(deps);
  const { publicKey, fingerprint } = currentKeyAt(history, deps.clock.now().toISOString());
  return { publicKey, algorithm: SIGNING_ALGORITHM, keySpec: SIGNING_KEY_SPEC, fingerprint };
}
