import { createHash } from 'node:crypto';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import { SIGNING_ALGORITHM, SIGNING_KEY_SPEC } from '../ports/signer.js';
import type { Deps } from '../runtime/deps.js';

/** What /.well-known/signing-key publishes: the key every record's signature verifies against. */
export async function publishedSigningKey(deps: Deps) {
  const publicKey = await publicKeyBase64(deps.signer);
  return {
    publicKey,
    algorithm: SIGNING_ALGORITHM,
    keySpec: SIGNING_KEY_SPEC,
    fingerprint: createHash('sha256').update(Buffer.from(publicKey, 'base64')).digest('hex'),
  };
}
