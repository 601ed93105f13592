import canonicalize from 'canonicalize';
import { endorsementMessage, fingerprintOf, type SigningKeyHistory } from '../ledger/key-history.js';
import {
  identityOf,
  latestKey,
  needsReplacement,
  withRevocation,
  withRotation,
} from '../ledger/key-rotation.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import type { Deps } from '../runtime/deps.js';
import { padSequence } from '../store/keys.js';
import { writeKeyHistoryVersion, type StoredKeyHistory } from '../store/signing-key-store.js';
import { loadKeyHistory, signerOf } from './key-history.js';

/**
 * Rotation and revocation of the ledger signing key (issue 15), what `ledgerctl signing-key rotate|revoke`
 * runs against the local stack or a deployed stage. Each change is a new version of the history: written to
 * the ledger table (conditional on the version being new), then, as RFC 8785 JSON, to the immutable store under
 * `signing-keys/<12-digit version>.json`. docs/architecture.md §5 "Signing keys" has the design.
 */

/** Where each version of the history is kept in the immutable store. */
export function immutableKeyHistoryKey(version: number): string {
  return `signing-keys/${padSequence(version)}.json`;
}

/**
 * Default lead time of a rotation (ledgerctl --lead-seconds): six times the default KEY_HISTORY_TTL_MS, so every
 * instance has read the new history well before the new key's window opens.
 */
export const DEFAULT_ROTATION_LEAD_SECONDS = 60;

/** A key the operator made (a PEM file under DATA_DIR/keys, or a KMS key of the stack), reachable by `keyId`. */
export interface NewSigningKey {
  keyId: string;
}

export interface RotationOptions {
  /** How long after now the new key starts signing: longer than KEY_HISTORY_TTL_MS, so every instance knows. */
  leadMs: number;
}

/**
 * Introduces `key`: valid from now + lead, the current key valid until that instant, the new entry endorsed by
 * the current key (a Sign over endorsementMessage). Returns the new history.
 */
export async function rotateSigningKey(
  deps: Deps,
  key: NewSigningKey,
  options: RotationOptions,
): Promise<SigningKeyHistory> {
  return change(deps, async (stored) => rotated(deps, stored, key, options));
}

/**
 * Revokes key `fingerprint` from `from`: records it signed at or after that instant fail verification
 * (KEY_REVOKED). When it is the current key, the service cannot go on signing with it: `replacement` must be
 * given, and the same version also rotates to it (lead as for a rotation).
 */
export async function revokeSigningKey(
  deps: Deps,
  input: { fingerprint: string; from: string; replacement?: NewSigningKey } & RotationOptions,
): Promise<SigningKeyHistory> {
  return change(deps, async (stored) => {
    const revoked = { ...stored, history: withRevocation(stored.history, input.fingerprint, input.from) };
    if (!needsReplacement(revoked.history)) return revoked;
    if (!input.replacement)
      throw new Error(
        `Key ${input.fingerprint} is the current signing key: revoking it needs a new key to rotate to`,
      );
    // Rotate on the version before the revocation, then revoke: one new version with both changes.
    const next = await rotated(deps, stored, input.replacement, input);
    const history = withRevocation(next.history, input.fingerprint, input.from);
    return { ...next, history: { ...history, version: stored.history.version + 1 } };
  });
}

async function rotated(
  deps: Deps,
  stored: StoredKeyHistory,
  key: NewSigningKey,
  options: RotationOptions,
): Promise<StoredKeyHistory> {
  const publicKey = await publicKeyBase64(deps.signerFor(key.keyId));
  const validFrom = new Date(deps.clock.now().getTime() + options.leadMs).toISOString();
  const identity = identityOf(publicKey, validFrom);
  const previous = latestKey(stored.history);
  const signature = await signerOf(deps, stored, previous.fingerprint).sign(endorsementMessage(identity));
  const history = withRotation(stored.history, identity, {
    signedBy: previous.fingerprint,
    signature: Buffer.from(signature).toString('base64'),
  });
  return { ...stored, history, keyIds: { ...stored.keyIds, [fingerprintOf(publicKey)]: key.keyId } };
}

/**
 * Applies `next` to the current version and writes the result; the genesis version is written first when none
 * is stored yet (so the store holds every version from 1). A lost race (another change took the version) is
 * an error: the operator looks at the history and decides again.
 */
async function change(
  deps: Deps,
  next: (stored: StoredKeyHistory) => Promise<StoredKeyHistory>,
): Promise<SigningKeyHistory> {
  const current = await loadKeyHistory(deps);
  if (current.writtenAt === new Date(0).toISOString())
    await persist(deps, { ...current, writtenAt: now(deps) });
  // The current version's copy again (identical bytes count as done): a change that died between its table
  // write and its copy is completed here.
  else await copyToImmutable(deps, current.history);
  const changed = { ...(await next(current)), writtenAt: now(deps) };
  await persist(deps, changed);
  return changed.history;
}

/** The table first (the version is taken or not), then its immutable copy, derived from what was written. */
async function persist(deps: Deps, stored: StoredKeyHistory): Promise<void> {
  if (!(await writeKeyHistoryVersion(deps, stored)))
    throw new Error(
      `Signing-key history version ${stored.history.version} was written by someone else meanwhile; try again`,
    );
  await copyToImmutable(deps, stored.history);
}

async function copyToImmutable(deps: Deps, history: SigningKeyHistory): Promise<void> {
  const bytes = Buffer.from(canonicalize(history) as string, 'utf8');
  await deps.objects.put('immutable', immutableKeyHistoryKey(history.version), bytes, 'application/json');
}

function now(deps: Deps): string {
  return deps.clock.now().toISOString();
}
