import { checkpointOrigin } from '../domain/tlog/checkpoint.js';
import { formatVkey, SIG_ECDSA, SIG_ED25519 } from '../domain/tlog/note.js';
import { publicBaseUrl } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { checkpointKeyHistory, currentKeys } from './key-history.js';

/*
 * The C2SP verifier keys of a firm's log (issue 31), `name+hex(keyID)+base64(type ‖ key)`, one a line, all named
 * by the firm's checkpoint origin: what a witness, a monitor or `verify-evidence` is configured with to check the
 * log's checkpoint signatures. Both come from the ledger table's key histories, so this route needs no access to
 * the checkpoint key itself (only the log-checkpoint worker has it).
 * - type 0x02 (ECDSA P-256, key = SPKI DER) for each key of the signing-key history that is not revoked: the
 *   current key signs new checkpoints, earlier ones signed older checkpoints. A revoked key is left out: its
 *   signature must not be trusted, whatever it signed.
 * - type 0x01 (Ed25519, key = the 32 raw bytes) for each key of the checkpoint-key history (`CHECKPOINTKEYS`),
 *   the current one and those that signed older checkpoints; none before the first checkpoint is signed.
 */
export async function logVerifierKeys(deps: Deps, firmId: string): Promise<string> {
  const origin = checkpointOrigin(publicBaseUrl(), firmId);
  const [{ history }, checkpointKeys] = await Promise.all([currentKeys(deps), checkpointKeyHistory(deps)]);
  const ecdsa = history.keys
    .filter((key) => key.revokedFrom === null)
    .map((key) => formatVkey(origin, SIG_ECDSA, Buffer.from(key.publicKey, 'base64')));
  const ed25519 = checkpointKeys.map((key) =>
    formatVkey(origin, SIG_ED25519, Buffer.from(key.publicKey, 'base64')),
  );
  return [...ecdsa, ...ed25519].map((line) => `${line}\n`).join('');
}
