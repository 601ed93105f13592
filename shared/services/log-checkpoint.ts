import { checkpointOrigin, formatCheckpoint } from '../domain/tlog/checkpoint.js';
import type { Hash } from '../domain/tlog/hash.js';
import { ecdsaKeyId, ed25519KeyId, formatNote, type NoteSignature } from '../domain/tlog/note.js';
import { keyForTimestamp } from '../ledger/key-history.js';
import { ServiceUnavailableError } from '../errors.js';
import { publicBaseUrl } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { putCheckpoint, type StoredCheckpoint } from '../store/log-store.js';
import { currentKeys, registerCheckpointKey, signerOf } from './key-history.js';

/**
 * Signs a firm's tree as a C2SP checkpoint (issue 31): the tlog-checkpoint text of origin
 * `<host[:port] of PUBLIC_BASE_URL>/ledger/<firmId>`, size and root, in a C2SP signed note carrying two
 * signatures of the log, both named by the origin: type 0x02 by the ledger's ECDSA P-256 key valid now in the
 * signing-key history (key ID = SHA-256(SPKI DER)[:4]; DER ECDSA over SHA-256 of the text, as KMS ECDSA_SHA_256
 * over the RAW message), and type 0x01 by the Ed25519 checkpoint key (deps.noteSigner). Both Signs run in
 * parallel; then one conditional write (putCheckpoint) decides.
 */

/** The firm's checkpoint origin, from PUBLIC_BASE_URL. */
export function firmOrigin(firmId: string): string {
  return checkpointOrigin(publicBaseUrl(), firmId);
}

/** The signed note of a tree; `at` picks the ECDSA key (the history's window holding it). */
export async function signCheckpointNote(
  deps: Deps,
  firmId: string,
  tree: { size: number; root: Hash },
  at: Date,
): Promise<string> {
  const noteSigner = deps.noteSigner;
  if (!noteSigner) throw new Error('No checkpoint key is configured (CHECKPOINT_KEY_ID)');
  await registerCheckpointKey(deps, noteSigner);
  const origin = firmOrigin(firmId);
  const text = formatCheckpoint({ origin, size: tree.size, root: tree.root, extensions: [] });
  const message = new TextEncoder().encode(text);
  const stored = await currentKeys(deps);
  const entry = keyForTimestamp(stored.history, at.toISOString());
  if (!entry) throw new ServiceUnavailableError('No signing key may sign at this instant; retry shortly', 5);
  const ecdsa = signerOf(deps, stored, entry.fingerprint);
  const [ecdsaSignature, spki, edSignature, edKey] = await Promise.all([
    ecdsa.sign(message),
    ecdsa.publicKeySpki(),
    noteSigner.sign(message),
    noteSigner.publicKey(),
  ]);
  if (Buffer.from(spki).toString('base64') !== entry.publicKey)
    throw new Error(`The signer of key ${entry.fingerprint} holds another key`);
  const signatures: NoteSignature[] = [
    { name: origin, keyId: ecdsaKeyId(spki), signature: ecdsaSignature },
    { name: origin, keyId: ed25519KeyId(origin, edKey), signature: edSignature },
  ];
  return formatNote(text, signatures);
}

/**
 * Signs and stores the checkpoint of `tree`; the stored checkpoint, or undefined when another integrator stored
 * this size or a larger one first (the signatures are then dropped: the lease makes that rare).
 */
export async function publishCheckpoint(
  deps: Deps,
  firmId: string,
  tree: { size: number; root: Hash },
): Promise<StoredCheckpoint | undefined> {
  // The checkpoint key's window must hold the checkpoint's time: a key met for the first time is registered from
  // now on, so register it (once per instance) before taking that time.
  if (deps.noteSigner) await registerCheckpointKey(deps, deps.noteSigner);
  const at = deps.clock.now();
  const note = await signCheckpointNote(deps, firmId, tree, at);
  const checkpoint: StoredCheckpoint = { size: tree.size, root: tree.root, note, signedAt: at.toISOString() };
  return (await putCheckpoint(deps, firmId, checkpoint)) ? checkpoint : undefined;
}
