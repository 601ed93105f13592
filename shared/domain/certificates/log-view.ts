import { parseCosignatureSignature } from '../tlog/cosignature.js';
import { encodeHex } from '../tlog/encoding.js';
import { parseNote } from '../tlog/note.js';
import type { EvidenceLog } from '../../ledger/evidence-bundle.js';
import type { LogCheck } from '../../ledger/evidence-log-verify.js';

/*
 * What the firm's verifiable log says of a certified record (issue 31, "the public verify page and JSON say
 * 'included in <origin> at size N, cosigned by …'"), as the public verification shows it: pure, from the log part
 * the service read (the latest checkpoint with its cosignatures and the record's inclusion hashes) and the verdict
 * of the evidence verifier's log check (shared/ledger/evidence-log-verify.ts), which checked the inclusion proof,
 * the log's signatures against the key histories and each known witness's cosignature. Nothing here trusts a
 * stored flag: every "verified" below is the outcome of that check.
 */

/** One witness cosignature that verified with the witness's vkey. */
export interface LogCosigner {
  /** The witness's name, as its vkey names it. */
  name: string;
  /** Its key ID, 8 lowercase hex. */
  keyId: string;
  /** When it cosigned: the cosignature/v1 timestamp (ISO 8601; a whole second). */
  timestamp: string;
}

export type LogInclusion = 'verified' | 'failed' | 'pending' | 'no-checkpoint';

/** The `log` field of a certificate's verification result. */
export interface CertificateLogView {
  /**
   * verified: the record's inclusion proof verifies against the checkpoint's root; failed: it does not (the row
   * was changed after the checkpoint, or the log's data is damaged); pending: the latest checkpoint does not cover
   * the record yet (just committed); no-checkpoint: none covers it and none will (checkpoints are off).
   */
  inclusion: LogInclusion;
  /** The log's origin `<host>/ledger/<firmId>` as its latest checkpoint names it; null when it has none. */
  origin: string | null;
  /** The record's leaf index in the log: its sequence number − 1. */
  leafIndex: number;
  /** The size of the checkpoint checked (the latest, covering the record); null when pending or no-checkpoint. */
  treeSize: number | null;
  /** That checkpoint as a C2SP signed note, cosignatures included; null when pending or no-checkpoint. */
  checkpoint: string | null;
  /** When the log signed it (the service's own claim, which picks the keys whose windows must hold it). */
  signedAt: string | null;
  /** The log's own signatures that verified with a key valid at signedAt: 0x02 ECDSA P-256, 0x01 Ed25519. */
  logSignatures: ('ecdsa' | 'ed25519')[];
  /** The witnesses whose cosignature of the checkpoint verified, by key ID. */
  cosignedBy: LogCosigner[];
  /** The sentence the page shows. */
  statement: string;
}

export interface LogFacts {
  leafIndex: number;
  /** CHECKPOINT_INTERVAL_MS = 0: no checkpoint is signed on this deployment. */
  checkpointsOff: boolean;
  /** The log part read for the record (null: the firm's log has no checkpoint). */
  log: EvidenceLog | null;
  /** The evidence verifier's check of `log` for the record (null when `log` is). */
  check: LogCheck | null;
  /** The witnesses whose keys the service knows (the firm's and the platform's). */
  witnesses: readonly { name: string; keyId: string }[];
}

/** The view, and the log's failures in words (each makes the certificate invalid). */
export function certificateLogView(facts: LogFacts): { view: CertificateLogView; problems: string[] } {
  const { leafIndex, log, check } = facts;
  const origin = check?.verdict?.origin ?? log?.origin ?? null;
  const base = {
    origin,
    leafIndex,
    treeSize: null,
    checkpoint: null,
    signedAt: null,
    logSignatures: [],
    cosignedBy: [],
  };
  const verdict = check?.verdict ?? null;
  // No checkpoint, or the latest does not reach the record yet: nothing to check about this record.
  if (!log || !check || (verdict && verdict.size <= leafIndex)) {
    const inclusion: LogInclusion = facts.checkpointsOff ? 'no-checkpoint' : 'pending';
    const view = { ...base, inclusion, statement: '' };
    return { view: { ...view, statement: logStatement(view) }, problems: [] };
  }
  const problems = check.failures.map((f) => f.message);
  const failed =
    !verdict || check.failures.some((f) => f.code === 'NOT_INCLUDED' || f.code === 'CHECKPOINT_MALFORMED');
  const cosignedBy = verdict ? cosigners(log.checkpoint, facts.witnesses, verdict.cosignedBy) : [];
  const view: CertificateLogView = {
    inclusion: failed ? 'failed' : 'verified',
    origin,
    leafIndex,
    treeSize: verdict?.size ?? null,
    checkpoint: log.checkpoint,
    signedAt: log.signedAt,
    logSignatures: verdict?.logSignatures ?? [],
    cosignedBy,
    statement: '',
  };
  return { view: { ...view, statement: logStatement(view) }, problems };
}

/** The known witnesses named in `names` whose cosignature line is in `note`, with its timestamp. */
function cosigners(
  note: string,
  witnesses: readonly { name: string; keyId: string }[],
  names: readonly string[],
): LogCosigner[] {
  const { signatures } = parseNote(note);
  const found: LogCosigner[] = [];
  for (const witness of witnesses) {
    if (!names.includes(witness.name)) continue;
    const line = signatures.find((s) => s.name === witness.name && encodeHex(s.keyId) === witness.keyId);
    const parsed = line && parseCosignatureSignature(line.signature);
    if (!parsed) continue;
    found.push({
      name: witness.name,
      keyId: witness.keyId,
      timestamp: new Date(parsed.timestamp * 1000).toISOString(),
    });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.keyId.localeCompare(b.keyId));
}

const SIGNATURE_NAMES = { ecdsa: 'ledger key (ECDSA P-256)', ed25519: 'checkpoint key (Ed25519)' } as const;

/** "Included in <origin> at size N, …": what the verifiable log says of the record, in one sentence. */
export function logStatement(view: Omit<CertificateLogView, 'statement'>): string {
  switch (view.inclusion) {
    case 'no-checkpoint':
      return "The firm's verifiable log has no checkpoint that covers this record: checkpoints are off on this service.";
    case 'pending':
      return `Not yet in a checkpoint: the record (leaf ${view.leafIndex}) was committed after the latest checkpoint${view.origin ? ` of ${view.origin}` : ''}; a new one is signed within seconds of a commit.`;
    case 'failed':
      return `NOT included in ${view.origin ?? 'the log'} at size ${view.treeSize ?? '?'}: the record's inclusion proof (leaf ${view.leafIndex}) does not verify against the checkpoint.`;
    case 'verified': {
      const signed =
        view.logSignatures.length > 0
          ? `signed by the log's ${view.logSignatures.map((s) => SIGNATURE_NAMES[s]).join(' and ')}`
          : 'with no log signature that verifies';
      const cosigned =
        view.cosignedBy.length > 0
          ? `cosigned by ${view.cosignedBy.map((c) => `${c.name} at ${c.timestamp}`).join(', ')}`
          : 'not cosigned by any witness';
      return `Included in ${view.origin} at size ${view.treeSize} (leaf ${view.leafIndex}), ${signed}, ${cosigned}.`;
    }
  }
}
