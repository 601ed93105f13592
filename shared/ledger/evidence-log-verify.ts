import { parseCheckpoint, type Checkpoint } from '../domain/tlog/checkpoint.js';
import { decodeBase64, decodeHex, encodeBase64, encodeHex } from '../domain/tlog/encoding.js';
import { hashEquals, leafHash, type Hash } from '../domain/tlog/hash.js';
import {
  ecdsaKeyId,
  ed25519KeyId,
  formatVkey,
  parseNote,
  SIG_ECDSA,
  SIG_ED25519,
  verifierFromVkey,
  type NoteSignature,
} from '../domain/tlog/note.js';
import { verifyConsistency, verifyInclusion } from '../domain/tlog/verify.js';
import type { EvidenceLog } from './evidence-bundle.js';
import { keyProblemAt, type CheckpointKeyEntry, type SigningKeyHistory } from './key-history.js';
import type { LedgerRecord } from './record.js';

/**
 * The verifiable-log checks of an evidence bundle (issue 31, "Proofs in the evidence"), pure and offline, on the
 * tlog core (shared/domain/tlog: WebCrypto and @noble/hashes, so Node and the browser page run the same code):
 * - the checkpoint's two log signatures: the 0x02 ECDSA one by the ledger key of the key history whose window
 *   holds the checkpoint's `signedAt` (not revoked by then), the 0x01 Ed25519 one by the checkpoint key whose
 *   window holds it; a signature by a key the histories do not hold, or outside its window, fails;
 * - each record's inclusion (leaf = SHA-256(0x00 ‖ chainHash bytes)) against the checkpoint's root;
 * - a witness policy: at least `witnessesNeeded` of the given witness vkeys cosigned the checkpoint;
 * - `since`: a checkpoint the auditor kept (its log signatures checked against the histories) is a prefix of the
 *   bundle's, by the bundle's consistency proof; anything else is a split view, and both notes are reported.
 */

export interface LogPolicy {
  /** Witness vkeys (C2SP, usually type 0x04 cosignature/v1). */
  witnesses?: readonly string[];
  /** How many of `witnesses` must have cosigned; default all of them. */
  witnessesNeeded?: number;
  /** A signed checkpoint note the auditor kept earlier. */
  since?: string;
}

export type LogProblem =
  | 'LOG_MISSING'
  | 'CHECKPOINT_MALFORMED'
  | 'CHECKPOINT_SIGNATURE'
  | 'CHECKPOINT_KEY'
  | 'NOT_INCLUDED'
  | 'WITNESS_POLICY'
  | 'CONSISTENCY_UNPROVEN'
  | 'INCONSISTENT_HISTORY';

export interface LogFailure {
  code: LogProblem;
  record: LedgerRecord | null;
  message: string;
}

export interface LogVerdict {
  origin: string;
  size: number;
  /** base64 root hash of the checkpoint. */
  root: string;
  signedAt: string;
  /** The log signatures that verified with a key valid at signedAt: 'ecdsa' (0x02), 'ed25519' (0x01). */
  logSignatures: ('ecdsa' | 'ed25519')[];
  /** The names of the policy's witnesses whose cosignature verified. */
  cosignedBy: string[];
  /** Records whose inclusion proof verified. */
  included: number;
  /** First record of the bundle the checkpoint does not cover; null when none. */
  uncoveredFromSequence: number | null;
  /** The --since check: the kept checkpoint and whether the bundle's extends it. */
  since: { size: number; root: string; consistent: boolean } | null;
}

export interface LogCheck {
  verdict: LogVerdict | null;
  failures: LogFailure[];
}

const inWindow = (e: CheckpointKeyEntry, at: number) =>
  Date.parse(e.validFrom) <= at && (e.validUntil === null || at < Date.parse(e.validUntil));

interface LogKey {
  kind: 'ecdsa' | 'ed25519';
  vkey: string;
  keyId: Uint8Array;
  /** Why it may not sign at `signedAt`; null when it may. */
  windowProblem: (signedAt: string) => string | null;
}

function logKeys(origin: string, history: SigningKeyHistory, checkpointKeys: CheckpointKeyEntry[]): LogKey[] {
  const keys: LogKey[] = [];
  for (const entry of history.keys) {
    const spki = decodeBase64(entry.publicKey);
    if (!spki) continue;
    try {
      keys.push({
        kind: 'ecdsa',
        vkey: formatVkey(origin, SIG_ECDSA, spki),
        keyId: ecdsaKeyId(spki),
        windowProblem: (at) => {
          const problem = keyProblemAt(history, entry.publicKey, at);
          return problem && `ledger key ${entry.fingerprint} may not sign at ${at} (${problem})`;
        },
      });
    } catch {
      // a key the vkey format refuses cannot have signed a checkpoint; the key-history checks name it
    }
  }
  for (const entry of checkpointKeys) {
    const key = decodeBase64(entry.publicKey);
    if (!key || key.length !== 32) continue;
    keys.push({
      kind: 'ed25519',
      vkey: formatVkey(origin, SIG_ED25519, key),
      keyId: ed25519KeyId(origin, key),
      windowProblem: (at) =>
        inWindow(entry, Date.parse(at))
          ? null
          : `checkpoint key ${entry.publicKey} was not valid at ${at} (${entry.validFrom} → ${entry.validUntil ?? 'current'})`,
    });
  }
  return keys;
}

const sameId = (a: Uint8Array, b: Uint8Array) => encodeHex(a) === encodeHex(b);

/**
 * Checks the log signatures of `note` with `keys`: for each kind (ecdsa, ed25519), a signature by a known key that
 * verifies and (when `signedAt` is given) was in its window. Returns the kinds that passed and the problems.
 */
async function checkLogSignatures(
  note: { text: string; signatures: NoteSignature[] },
  origin: string,
  keys: LogKey[],
  signedAt: string | null,
): Promise<{ passed: ('ecdsa' | 'ed25519')[]; problems: { code: LogProblem; message: string }[] }> {
  const passed: ('ecdsa' | 'ed25519')[] = [];
  const problems: { code: LogProblem; message: string }[] = [];
  for (const kind of ['ecdsa', 'ed25519'] as const) {
    const label = kind === 'ecdsa' ? '0x02 ECDSA' : '0x01 Ed25519';
    const ofKind = keys.filter((k) => k.kind === kind);
    const type = kind === 'ecdsa' ? SIG_ECDSA : SIG_ED25519;
    const signatures = note.signatures.filter((s) => s.name === origin);
    let matched = false;
    for (const signature of signatures) {
      const key = ofKind.find((k) => sameId(k.keyId, signature.keyId));
      if (!key) continue;
      matched = true;
      const verifier = await verifierFromVkey(key.vkey);
      if (verifier.type !== type || !(await verifier.verify(note.text, signature.signature))) {
        problems.push({
          code: 'CHECKPOINT_SIGNATURE',
          message: `the ${label} log signature does not verify`,
        });
        continue;
      }
      const window = signedAt === null ? null : key.windowProblem(signedAt);
      if (window) problems.push({ code: 'CHECKPOINT_KEY', message: `the ${label} log signature: ${window}` });
      else passed.push(kind);
      break;
    }
    if (!matched)
      problems.push({
        code: 'CHECKPOINT_KEY',
        message: `no ${label} log signature by a key of the bundle's key histories (an unknown key signed it, or none did)`,
      });
  }
  return { passed, problems };
}

function readNote(
  note: string,
): { text: string; signatures: NoteSignature[]; checkpoint: Checkpoint } | string {
  try {
    const parsed = parseNote(note);
    return { ...parsed, checkpoint: parseCheckpoint(parsed.text) };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

function hashesOf(lines: readonly string[]): Hash[] | null {
  const hashes = lines.map((line) => decodeBase64(line));
  return hashes.every((h): h is Uint8Array<ArrayBuffer> => h !== undefined && h.length === 32)
    ? hashes
    : null;
}

/** Verifies `log` for `records` of `firmId` with the bundle's key history, under `policy`. */
export async function checkEvidenceLog(
  log: EvidenceLog | null | undefined,
  context: { firmId: string; records: readonly LedgerRecord[]; keyHistory: SigningKeyHistory },
  policy: LogPolicy,
): Promise<LogCheck> {
  const failures: LogFailure[] = [];
  const fail = (code: LogProblem, message: string, record: LedgerRecord | null = null) =>
    failures.push({ code, record, message });
  const needed = policy.witnessesNeeded ?? policy.witnesses?.length ?? 0;
  if (!log) {
    if (needed > 0 || policy.since !== undefined)
      fail('LOG_MISSING', 'the bundle carries no checkpoint, so the witness policy or --since cannot be met');
    return { verdict: null, failures };
  }
  const read = readNote(log.checkpoint);
  if (typeof read === 'string' || !log.origin.endsWith(`/ledger/${context.firmId}`)) {
    fail('CHECKPOINT_MALFORMED', typeof read === 'string' ? read : `origin ${log.origin} is not this firm's`);
    return { verdict: null, failures };
  }
  const { checkpoint } = read;
  if (checkpoint.origin !== log.origin)
    fail('CHECKPOINT_MALFORMED', `the checkpoint's origin ${checkpoint.origin} is not ${log.origin}`);
  const keys = logKeys(log.origin, context.keyHistory, log.checkpointKeys);
  const signatures = await checkLogSignatures(read, log.origin, keys, log.signedAt);
  for (const p of signatures.problems) fail(p.code, p.message);

  let included = 0;
  for (const record of context.records) {
    if (!Number.isSafeInteger(record.sequenceNumber) || record.sequenceNumber > checkpoint.size) continue;
    const entry = log.proofs.find((p) => p.sequenceNumber === record.sequenceNumber);
    const hashes = entry && hashesOf(entry.hashes);
    const data = typeof record.chainHash === 'string' ? decodeHex(record.chainHash) : undefined;
    const ok =
      hashes !== null &&
      hashes !== undefined &&
      data !== undefined &&
      data.length === 32 &&
      verifyInclusion(leafHash(data), record.sequenceNumber - 1, checkpoint.size, hashes, checkpoint.root);
    if (ok) included += 1;
    else
      fail(
        'NOT_INCLUDED',
        entry
          ? `the record's chainHash is not leaf ${record.sequenceNumber - 1} of the checkpoint's tree (size ${checkpoint.size})`
          : `the checkpoint (size ${checkpoint.size}) covers the record, but the bundle has no inclusion proof for it`,
        record,
      );
  }
  const uncovered = context.records.find((r) => r.sequenceNumber > checkpoint.size);

  const cosignedBy: string[] = [];
  for (const vkey of policy.witnesses ?? []) {
    const verifier = await verifierFromVkey(vkey);
    const signature = read.signatures.find(
      (s) => s.name === verifier.name && sameId(s.keyId, verifier.keyId),
    );
    if (signature && (await verifier.verify(read.text, signature.signature))) cosignedBy.push(verifier.name);
  }
  if (cosignedBy.length < needed)
    fail(
      'WITNESS_POLICY',
      `${cosignedBy.length} of the ${policy.witnesses?.length ?? 0} given witnesses cosigned the checkpoint; ${needed} required`,
    );

  const since =
    policy.since === undefined ? null : await checkSince(policy.since, log, checkpoint, keys, fail);
  return {
    verdict: {
      origin: log.origin,
      size: checkpoint.size,
      root: encodeBase64(checkpoint.root),
      signedAt: log.signedAt,
      logSignatures: signatures.passed,
      cosignedBy,
      included,
      uncoveredFromSequence: uncovered ? uncovered.sequenceNumber : null,
      since,
    },
    failures,
  };
}

/** The bundle's checkpoint extends the kept one (`since`), by the bundle's consistency proof. */
async function checkSince(
  since: string,
  log: EvidenceLog,
  current: Checkpoint,
  keys: LogKey[],
  fail: (code: LogProblem, message: string) => void,
): Promise<{ size: number; root: string; consistent: boolean } | null> {
  const kept = readNote(since);
  if (typeof kept === 'string') {
    fail('CHECKPOINT_MALFORMED', `the kept checkpoint: ${kept}`);
    return null;
  }
  const old = kept.checkpoint;
  const result = { size: old.size, root: encodeBase64(old.root), consistent: false };
  if (old.origin !== current.origin) {
    fail('CHECKPOINT_MALFORMED', `the kept checkpoint is of origin ${old.origin}, not ${current.origin}`);
    return result;
  }
  // The kept note's own log signatures, by keys of the histories (its signing time is not known: no window).
  const signatures = await checkLogSignatures(kept, old.origin, keys, null);
  for (const p of signatures.problems) fail(p.code, `the kept checkpoint: ${p.message}`);
  const both = `\n--- kept checkpoint ---\n${since}--- bundle checkpoint ---\n${log.checkpoint}`;
  if (old.size > current.size) {
    fail(
      'CONSISTENCY_UNPROVEN',
      `the bundle's checkpoint (size ${current.size}) is older than the kept one (size ${old.size}): export a newer bundle`,
    );
    return result;
  }
  if (old.size === current.size) {
    result.consistent = hashEquals(old.root, current.root);
    if (!result.consistent)
      fail(
        'INCONSISTENT_HISTORY',
        `two checkpoints of size ${old.size} with different roots: a split view${both}`,
      );
    return result;
  }
  const proof = log.consistency;
  if (!proof || proof.fromSize !== old.size) {
    fail(
      'CONSISTENCY_UNPROVEN',
      `the bundle has no consistency proof from size ${old.size}: export it with consistencyFrom=${old.size}`,
    );
    return result;
  }
  const hashes = hashesOf(proof.hashes);
  result.consistent =
    hashes !== null && verifyConsistency(old.size, current.size, hashes, old.root, current.root);
  if (!result.consistent)
    fail(
      'INCONSISTENT_HISTORY',
      `the bundle's checkpoint (size ${current.size}) does not extend the kept one (size ${old.size}): the history was rewritten or split${both}`,
    );
  return result;
}
