import type { CheckpointKeyEntry, SigningKeyHistory } from './key-history.js';
import type { LedgerRecord } from './record.js';

/**
 * The offline evidence bundle (issue 15, part 5): a range of one firm's chain with everything needed to check
 * it without the service or the network (docs/ledger-format.md, "Evidence bundles"). Types and pure rules
 * only: the service builds bundles (shared/services/evidence-export.ts), the verifier checks them
 * (evidence-verify.ts), and the CLI and the offline page share that verifier.
 */

export const EVIDENCE_BUNDLE_FORMAT = 'gls-evidence-bundle';
export const EVIDENCE_BUNDLE_VERSION = 1;

/** At most this many records in one bundle (the `limit` query parameter may ask for fewer). */
export const MAX_BUNDLE_RECORDS = 1000;
/**
 * At most this many bytes of record JSON (UTF-8 of each record's JSON text, summed) in one bundle, so a bundle
 * of large records stays well inside a Lambda response (6 MB); a bundle always holds at least one record.
 */
export const MAX_BUNDLE_RECORD_BYTES = 4 * 1024 * 1024;

export interface EvidenceBundle {
  format: typeof EVIDENCE_BUNDLE_FORMAT;
  version: typeof EVIDENCE_BUNDLE_VERSION;
  firmId: string;
  /** The range asked for; toSequence null means "to the chain head". */
  range: { fromSequence: number; toSequence: number | null };
  /** The firm's chain head (its last sequence number, 0 for an empty chain) when the bundle was made. */
  headSequenceNumber: number;
  /** Where the next bundle of the same range starts; null when this bundle reaches the range's end. */
  nextFromSequence: number | null;
  /**
   * The full record before `range.fromSequence` (null when the range starts at 1, or when the bundle holds no
   * records): its chainHash is what the first record's previousHash must equal, and it is itself verified
   * (hash, signature, key), so the anchor is signed evidence rather than a bare claim.
   */
  predecessor: LedgerRecord | null;
  /** Exactly the public record fields, in sequence order. */
  records: LedgerRecord[];
  /** Every signing key the service has used, with its window (shared/ledger/key-history.ts). */
  keyHistory: SigningKeyHistory;
  generatedAt: string;
  /**
   * Only in a record's evidence (GET /v1/ledger/records/{id}/evidence): the record's certificate as issued (what
   * it prints and what it certified), null when the record has none. The verifier checks it names the record.
   */
  certificate?: EvidenceCertificate | null;
  /**
   * The records' place in the firm's verifiable log (issue 31): one cosigned checkpoint for the whole bundle, each
   * record's inclusion proof against it, the checkpoint keys the note's Ed25519 signature is checked with, and
   * (export with consistencyFrom=M) the consistency proof from tree size M. null when the firm's log has no
   * checkpoint yet; absent in bundles made before the log existed.
   */
  log?: EvidenceLog | null;
}

/** The verifiable-log part of a bundle (docs/ledger-format.md §12, "Proofs in the evidence"). */
export interface EvidenceLog {
  /** The firm's checkpoint origin, `<host[:port]>/ledger/<firmId>`: the key name of every log signature. */
  origin: string;
  /**
   * The C2SP signed note of the checkpoint: the tlog-checkpoint text, the log's two signature lines (0x02 ECDSA by
   * the ledger key, 0x01 Ed25519 by the checkpoint key) and every witness cosignature gathered.
   */
  checkpoint: string;
  /** When the log signed the checkpoint: picks the ledger key and the checkpoint key whose windows hold it. */
  signedAt: string;
  /** The checkpoint-key history (Ed25519, oldest first) with validity windows, as GET /log/vkeys derives from it. */
  checkpointKeys: CheckpointKeyEntry[];
  /**
   * Per record in the checkpoint: its RFC 6962 inclusion hashes (base64, the leaf's sibling first). The record's
   * C2SP tlog-proof is `c2sp.org/tlog-proof@v1`, `index <sequenceNumber − 1>`, these hashes, a blank line, then
   * `checkpoint`: exactly what GET /v1/ledger/records/{id}/proof?treeSize=<size> answers.
   */
  proofs: { sequenceNumber: number; hashes: string[] }[];
  /**
   * The first sequence number of the bundle the checkpoint does not cover (records committed after it, still not
   * checkpointed after a bounded wait), null when it covers them all; those records carry no proof.
   */
  uncoveredFromSequence: number | null;
  /** Asked with consistencyFrom=M: the RFC 6962 consistency proof from tree size M to the checkpoint's size. */
  consistency: { fromSize: number; hashes: string[] } | null;
}

/** A certificate in a record's evidence: its printed identity and the values it certified (no PDF URL). */
export interface EvidenceCertificate {
  id: string;
  ledgerRecordId: string;
  firmId: string;
  firmName: string;
  firmFrnNumber: string;
  issuedAt: string;
  verificationUrl: string;
  metadata: Record<string, unknown>;
  sequenceNumber: number;
  recordHash: string;
  chainHash: string;
}

/** The fields of a bundle that decide which sequence numbers it must hold. */
export type CoverageFields = Pick<EvidenceBundle, 'range' | 'headSequenceNumber' | 'nextFromSequence'>;

/**
 * The sequence numbers a bundle must hold, [from, to] (empty when to < from): up to the cursor when there is
 * one, else up to the range's end clipped to the chain head.
 */
export function coveredRange(bundle: CoverageFields): { from: number; to: number } {
  const from = bundle.range.fromSequence;
  const end = Math.min(bundle.range.toSequence ?? bundle.headSequenceNumber, bundle.headSequenceNumber);
  return { from, to: bundle.nextFromSequence === null ? end : bundle.nextFromSequence - 1 };
}

/** UTF-8 length of a record's JSON text: what the byte budget counts. */
export function recordBytes(record: LedgerRecord): number {
  return new TextEncoder().encode(JSON.stringify(record)).length;
}

/**
 * How many of `records` (in order) fit the bounds: at most `maxRecords`, and at most `maxBytes` of record JSON,
 * but always the first one (a single record is far below the byte budget: DynamoDB items are at most 400 KB).
 */
export function countWithinBudget(
  records: readonly LedgerRecord[],
  maxRecords: number,
  maxBytes: number = MAX_BUNDLE_RECORD_BYTES,
): number {
  let bytes = 0;
  let count = 0;
  for (const record of records) {
    if (count >= maxRecords) break;
    bytes += recordBytes(record);
    if (count > 0 && bytes > maxBytes) break;
    count += 1;
  }
  return count;
}
