import type { SigningKeyHistory } from '../ledger/key-history.js';
import type { Deps } from '../runtime/deps.js';
import { loadKeyHistory } from './key-history.js';

/**
 * The key history an evidence bundle carries: exactly what GET /.well-known/signing-keys publishes (issue 15,
 * shared/services/key-history.ts), read fresh rather than from the instance's cache, so a bundle made right
 * after a rotation or revocation already carries it. Before the first rotation it is the genesis version (the
 * signer's key, valid from the epoch), which needs the route's `publicKey` permission.
 */
export async function currentKeyHistory(deps: Deps): Promise<SigningKeyHistory> {
  return (await loadKeyHistory(deps)).history;
}
