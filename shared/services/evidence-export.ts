import {
  countWithinBudget,
  EVIDENCE_BUNDLE_FORMAT,
  EVIDENCE_BUNDLE_VERSION,
  MAX_BUNDLE_RECORD_BYTES,
  recordBytes,
  type EvidenceBundle,
  type EvidenceCertificate,
} from '../ledger/evidence-bundle.js';
import { NotFoundError } from '../errors.js';
import { recordOf } from '../ledger/record.js';
import type { Deps } from '../runtime/deps.js';
import { getCertificateForRecord, type CertificateItem } from '../store/certificate-store.js';
import {
  getRecordBySequence,
  queryRowRangeUntil,
  readHead,
  rowsWithRecordId,
} from '../store/ledger-store.js';
import { currentKeyHistory } from './evidence-key-history.js';
import { evidenceLog } from './evidence-log.js';

export interface ExportEvidenceInput {
  fromSequence: number;
  /** Absent: to the chain head. */
  toSequence?: number;
  /** At most this many records (1 to MAX_BUNDLE_RECORDS). */
  limit: number;
  /** A tree size M the caller holds a checkpoint of: the bundle then carries the consistency proof from M. */
  consistencyFrom?: number;
}

/**
 * GET /v1/ledger/export: one bounded evidence bundle of the firm's chain (issue 15, part 5). Reads the head,
 * then the REC# key range [fromSequence, min(toSequence, head, fromSequence + limit - 1)] with one Query, page by
 * page until the byte budget is spent, the predecessor row and the key history. Rows are returned as stored
 * (a damaged row is evidence too: the verifier names it); a missing row shows as a gap. Then the records' place in
 * the verifiable log (evidence-log.ts): one checkpoint, each record's inclusion proof, the consistency proof asked.
 */
export async function exportEvidence(
  deps: Deps,
  firmId: string,
  input: ExportEvidenceInput,
): Promise<EvidenceBundle> {
  const { fromSequence: from, toSequence, limit } = input;
  const head = (await readHead(deps, firmId)).sequenceNumber;
  const end = Math.min(toSequence ?? head, head);
  const last = Math.min(end, from + limit - 1);
  const any = last >= from;
  const [rows, predecessor] = await Promise.all([
    any ? queryRowRangeUntil(deps, firmId, from, last, overBudget) : [],
    any && from > 1 ? getRecordBySequence(deps, firmId, from - 1) : null,
  ]);
  const count = countWithinBudget(
    rows.map((row) => row.record),
    limit,
  );
  const records = rows.slice(0, count).map((row) => recordOf(row.record));
  const log = await evidenceLog(
    deps,
    firmId,
    records.map((r) => r.sequenceNumber),
    { consistencyFrom: input.consistencyFrom },
  );
  // Read after the log's checkpoint is chosen (which may wait for one): the checkpoint's ECDSA signature is by
  // the ledger key of its signing instant, so a history read before a rotation during the wait would lack it.
  const keyHistory = await currentKeyHistory(deps);
  const cut = rows[count];
  const nextFromSequence = cut ? cut.position : last < end ? last + 1 : null;
  return {
    format: EVIDENCE_BUNDLE_FORMAT,
    version: EVIDENCE_BUNDLE_VERSION,
    firmId,
    range: { fromSequence: from, toSequence: toSequence ?? null },
    headSequenceNumber: head,
    nextFromSequence,
    predecessor: predecessor && recordOf(predecessor),
    records,
    keyHistory,
    generatedAt: new Date().toISOString(),
    log,
  };
}

/** Stop reading pages once the rows read are past the byte budget (the last page may overshoot; it is cut). */
function overBudget(rows: readonly { record: Parameters<typeof recordBytes>[0] }[]): boolean {
  let bytes = 0;
  for (const row of rows) {
    bytes += recordBytes(row.record);
    if (bytes > MAX_BUNDLE_RECORD_BYTES) return true;
  }
  return false;
}

/**
 * GET /v1/ledger/records/{id}/evidence: the bundle of one record (with its predecessor and the key history) and
 * its certificate as issued, null when it has none. 404 for an id the firm does not hold.
 */
export async function exportRecordEvidence(
  deps: Deps,
  firmId: string,
  recordId: string,
): Promise<EvidenceBundle> {
  const [row] = await rowsWithRecordId(deps, firmId, recordId);
  if (!row) throw new NotFoundError('Ledger record not found');
  const [bundle, certificate] = await Promise.all([
    exportEvidence(deps, firmId, { fromSequence: row.position, toSequence: row.position, limit: 1 }),
    getCertificateForRecord(deps, firmId, recordId),
  ]);
  return { ...bundle, certificate: certificate && evidenceCertificate(certificate) };
}

function evidenceCertificate(item: CertificateItem): EvidenceCertificate {
  const { id, ledgerRecordId, firmId, firmName, firmFrnNumber, issuedAt, verificationUrl, metadata } = item;
  const { sequenceNumber, recordHash, chainHash } = item;
  return {
    id,
    ledgerRecordId,
    firmId,
    firmName,
    firmFrnNumber,
    issuedAt,
    verificationUrl,
    metadata: metadata as unknown as Record<string, unknown>,
    sequenceNumber,
    recordHash,
    chainHash,
  };
}
