import { fingerprintOf, type SigningKeyHistory } from '../ledger/key-history.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import { SIGNING_ALGORITHM, SIGNING_KEY_SPEC } from '../ports/signer.js';
import type { Deps } from '../runtime/deps.js';

/** The start of the only key's window while the service has one key: every record's timestamp is after it. */
export const SINGLE_KEY_VALID_FROM = '1970-01-01T00:00:00.000Z';

/**
 * The key history an evidence bundle carries. THE ONE SEAM for issue 15's key history store (branch `keys`):
 * until it lands the service has one key and no history, so this builds the one-entry history of the signer's
 * current public key (valid from the epoch, never retired, not endorsed). At merge, point it at the published
 * history (what GET /.well-known/signing-keys answers) and nothing else in the export changes.
 */
export async function currentKeyHistory(deps: Deps): Promise<SigningKeyHistory> {
  const publicKey = await publicKeyBase64(deps.signer);
  return {
    version: 1,
    keys: [
      {
        fingerprint: fingerprintOf(publicKey),
        publicKey,
        algorithm: SIGNING_ALGORITHM,
        keySpec: SIGNING_KEY_SPEC,
        validFrom: SINGLE_KEY_VALID_FROM,
        validUntil: null,
        revokedFrom: null,
        endorsement: null,
      },
    ],
  };
}
