import { randomUUID } from 'node:crypto';
import { keyProblemAt, type SigningKeyEntry } from '../ledger/key-history.js';
import { windowKeyAt } from '../ledger/key-rotation.js';
import type { RecordPayload } from '../ledger/record.js';
import { publicKeyBase64 } from '../ledger/signing-key.js';
import { ServiceUnavailableError } from '../errors.js';
import { newId } from '../ids.js';
import type { Signer } from '../ports/signer.js';
import type { Deps } from '../runtime/deps.js';
import { currentKeys, signerOf } from '../services/key-history.js';
import type { ChainHead } from '../store/ledger-store.js';
import type { PendingAppend } from './append-batch.js';

/** Who writes SIGNING_KEY_ROTATED: the sequencer itself, for no caller. */
export const KEY_ROTATION_ACTOR = {
  id: 'system:signing-key-rotation',
  name: 'Signing key rotation',
  fcaRef: null,
};

/** The key that signs a batch: every record of a batch is signed by one key. */
export interface BatchKey {
  fingerprint: string;
  publicKey: string;
  signer: Signer;
}

export interface SigningPlan {
  key: BatchKey;
  /** How many of the placed appends share the first one's key; the others wait for a later batch. */
  keep: number;
  /** SIGNING_KEY_ROTATED to place before them, when the first is the firm's first record under a new key. */
  rotation: PendingAppend | null;
}

/**
 * Which key signs a batch (issue 15; docs/architecture.md §5 "Signing keys"). The key is chosen by each record's
 * timestamp, never by the clock: the entry of the history whose window holds it. A batch never mixes keys: it
 * keeps the appends up to the first whose key differs, the rest go to the next batch. When the first record's
 * key is not the one of the firm's head record, a SIGNING_KEY_ROTATED record (system actor, both fingerprints)
 * is placed first, at the first record's timestamp, in the same transaction, signed by the new key (the holder
 * archives it with the rest of the batch; no caller waits for it). A record
 * whose key is revoked at its timestamp is never signed: the batch fails with 503 until the next key is valid.
 */
export async function planSigning(
  deps: Deps,
  head: ChainHead,
  payloads: readonly RecordPayload[],
): Promise<SigningPlan> {
  const stored = await currentKeys(deps);
  const { history } = stored;
  const first = payloads[0]!;
  const entry = usableKeyAt(history, first.timestamp);
  // Later appends stay while they share the window (their revocation, if any, is judged in their own batch).
  let keep = 1;
  while (keep < payloads.length && windowKeyAt(history, payloads[keep]!.timestamp) === entry) keep++;
  const signer = signerOf(deps, stored, entry.fingerprint);
  if ((await publicKeyBase64(signer)) !== entry.publicKey)
    throw new Error(`The signer of key ${entry.fingerprint} holds another key`);
  const headKey =
    head.sequenceNumber > 0 && head.timestamp !== null ? windowKeyAt(history, head.timestamp) : undefined;
  const rotation =
    headKey && headKey.fingerprint !== entry.fingerprint
      ? rotationAppend(first, headKey, entry, history.version)
      : null;
  return { key: { fingerprint: entry.fingerprint, publicKey: entry.publicKey, signer }, keep, rotation };
}

function usableKeyAt(history: Parameters<typeof windowKeyAt>[0], timestamp: string): SigningKeyEntry {
  const entry = windowKeyAt(history, timestamp);
  if (!entry || keyProblemAt(history, entry.publicKey, timestamp) !== null)
    throw new ServiceUnavailableError(
      'No signing key may sign at this instant (the current key was revoked); retry shortly',
      5,
    );
  return entry;
}

function rotationAppend(
  first: RecordPayload,
  previous: SigningKeyEntry,
  next: SigningKeyEntry,
  historyVersion: number,
): PendingAppend {
  return {
    recordId: newId('record'),
    firmId: first.firmId,
    eventType: 'SIGNING_KEY_ROTATED',
    actor: KEY_ROTATION_ACTOR,
    documentHash: '',
    documentMetadata: {
      previousKeyFingerprint: previous.fingerprint,
      newKeyFingerprint: next.fingerprint,
      newKeyValidFrom: next.validFrom,
      keyHistoryVersion: historyVersion,
    },
    reviewJobId: null,
    requestedAt: first.timestamp,
    extras: [],
    timestampToken: `\u0000record-timestamp:${randomUUID()}`,
  };
}

/** Is this append the sequencer's own SIGNING_KEY_ROTATED (no caller waits for it)? */
export function isRotationAppend(append: PendingAppend): boolean {
  return append.eventType === 'SIGNING_KEY_ROTATED' && append.actor.id === KEY_ROTATION_ACTOR.id;
}
