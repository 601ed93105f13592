import { checkChunk, type VerificationCursor } from '../domain/integrity/chain-check.js';
import { diffRecords } from '../domain/integrity/record-diff.js';
import { NotFoundError } from '../errors.js';
import type { RecordMessage } from '../ledger-writer/dispatch.js';
import { recordOf, type LedgerRecord } from '../ledger/record.js';
import { certificateLog } from './certificate-log.js';
import { signingKeyHistory } from './key-history.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  getCertificateById,
  getCertificateForRecord,
  certificateListQuery,
  certificateOf,
  type CertificateItem,
} from '../store/certificate-store.js';
import { readArraySlice } from './pages.js';
import { immutableRecordKey } from '../store/immutable-layout.js';
import { getRecordById, queryRowRange } from '../store/ledger-store.js';

/** Lifetime of a presigned PDF URL. */
export const PDF_URL_TTL_SECONDS = 15 * 60;

/** The API shape of a certificate: the stored item, with a freshly presigned PDF URL, without the snapshot. */
export async function presentCertificate(deps: Deps, item: CertificateItem) {
  const { url } = await deps.objects.presignGet('certificates', item.pdfStorageKey, {
    expiresInSeconds: PDF_URL_TTL_SECONDS,
  });
  return {
    id: item.id,
    ledgerRecordId: item.ledgerRecordId,
    firmId: item.firmId,
    firmName: item.firmName,
    firmFrnNumber: item.firmFrnNumber,
    issuedAt: item.issuedAt,
    verificationUrl: item.verificationUrl,
    pdfUrl: url,
    pdfStorageKey: item.pdfStorageKey,
    metadata: item.metadata,
  };
}

async function requireRecord(deps: Deps, firmId: string, recordId: string): Promise<LedgerRecord> {
  const record = await getRecordById(deps, firmId, recordId);
  if (!record) throw new NotFoundError('Ledger record not found');
  return record;
}

/**
 * POST /v1/ledger/records/{id}/certificate: `existing` with the id once a certificate is issued, otherwise
 * enqueues generation (again, harmlessly, if it is already under way: the worker is idempotent).
 */
export async function requestCertificate(deps: Deps, firmId: string, recordId: string) {
  const record = await requireRecord(deps, firmId, recordId);
  const existing = await getCertificateForRecord(deps, firmId, record.id);
  if (existing) return { certificateId: existing.id, status: 'existing' as const };
  await deps.queue.send('certificates', {
    firmId,
    sequenceNumber: record.sequenceNumber,
    recordId: record.id,
    eventType: record.eventType,
  } satisfies RecordMessage);
  return { certificateId: null, status: 'enqueued' as const };
}

/** GET /v1/ledger/records/{id}/certificate: a presigned URL of the PDF; 404 until it is generated. */
export async function recordCertificateUrl(deps: Deps, firmId: string, recordId: string) {
  await requireRecord(deps, firmId, recordId);
  const certificate = await getCertificateForRecord(deps, firmId, recordId);
  if (!certificate) throw new NotFoundError('No certificate has been generated for this record yet');
  const { url } = await deps.objects.presignGet('certificates', certificate.pdfStorageKey, {
    expiresInSeconds: PDF_URL_TTL_SECONDS,
  });
  return { url, certificateId: certificate.id };
}

/** Up to `limit` of the firm's certificates, newest first, from the request's cursor: O(limit) (issue 14). */
export async function firmCertificates(
  deps: Deps,
  firmId: string,
  request: { limit: number; cursor?: string | undefined },
) {
  const scope = { firmId, query: { list: 'certificates' } };
  const slice = await readArraySlice(deps, scope, request, certificateListQuery(deps, firmId), certificateOf);
  return { ...slice, items: await Promise.all(slice.items.map((item) => presentCertificate(deps, item))) };
}

export async function findCertificate(deps: Deps, firmId: string, certificateId: string) {
  const item = await getCertificateById(deps, certificateId);
  if (!item || item.firmId !== firmId) throw new NotFoundError('Certificate not found');
  return presentCertificate(deps, item);
}

/**
 * Public verification of a certificate: recomputes the certified record's hashes from the stored row, checks
 * its link to the previous record, its signature and that its key was valid at the record's time by the key
 * history, not revoked by then (the very
 * checks of chain verification, shared/domain/integrity/chain-check.ts), compares the row with its immutable
 * copy and with what the certificate recorded at issue, and checks the record's inclusion in the firm's
 * verifiable log (./certificate-log.ts). `reason` lists every failure; null when valid.
 */
export async function verifyCertificate(deps: Deps, certificateId: string) {
  const item = await getCertificateById(deps, certificateId);
  if (!item) throw new NotFoundError('Certificate not found');
  const { firmId, sequenceNumber } = item;
  const [rows, copyObject, keyHistory] = await Promise.all([
    queryRowRange(deps, firmId, Math.max(1, sequenceNumber - 1), sequenceNumber),
    deps.objects.get('immutable', immutableRecordKey(firmId, sequenceNumber, item.ledgerRecordId)),
    signingKeyHistory(deps),
  ]);
  const row = rows.find((r) => r.position === sequenceNumber)?.record ?? null;
  const previous =
    sequenceNumber > 1 ? (rows.find((r) => r.position === sequenceNumber - 1)?.record ?? null) : null;
  const copy = copyObject
    ? recordOf(JSON.parse(Buffer.from(copyObject.body).toString('utf8')) as LedgerRecord)
    : null;

  const reasons: string[] = [];
  if (!row) reasons.push(`no record is stored under sequence number ${sequenceNumber} (it was deleted)`);
  else {
    if (row.id !== item.ledgerRecordId)
      reasons.push(`the record stored under sequence number ${sequenceNumber} is not the certified record`);
    const cursor: VerificationCursor = {
      nextSequence: sequenceNumber,
      previousChainHash: previous?.chainHash ?? null,
      previousKnown: sequenceNumber === 1 || previous !== null,
      recordsChecked: 0,
      brokenCount: 0,
    };
    const { broken } = checkChunk(
      firmId,
      [{ position: sequenceNumber, record: row }],
      sequenceNumber,
      cursor,
      keyHistory,
    );
    reasons.push(...broken.flatMap((b) => b.problems.map((p) => p.message)));
    if (sequenceNumber > 1 && !previous)
      reasons.push('the previous record is missing, so the chain link cannot be checked');
    if (row.recordHash !== item.recordHash || row.chainHash !== item.chainHash)
      reasons.push('the record hashes differ from those the certificate was issued for');
  }
  if (!copy) reasons.push('the immutable backup copy of the record is missing');
  else if (row) {
    const diffs = diffRecords(row, copy);
    if (diffs.length > 0)
      reasons.push(
        `the stored record differs from its immutable copy in ${diffs.map((d) => d.field).join(', ')}`,
      );
  }
  const shown = row ?? copy;
  // What the verifiable log says of the record (issue 31): its inclusion proof checked here, never a stored flag.
  const log = await certificateLog(deps, firmId, sequenceNumber, shown, keyHistory);
  reasons.push(...log.problems);
  return {
    valid: reasons.length === 0,
    certificate: await presentCertificate(deps, item),
    record: {
      id: shown?.id ?? item.ledgerRecordId,
      sequenceNumber: shown?.sequenceNumber ?? sequenceNumber,
      documentHash: shown?.documentHash ?? '',
      previousHash: shown?.previousHash ?? null,
      recordHash: shown?.recordHash ?? item.recordHash,
      chainHash: shown?.chainHash ?? item.chainHash,
      signature: shown?.signature ?? '',
      publicKey: shown?.publicKey ?? '',
    },
    log: log.view,
    verifiedAt: isoNow(deps.clock),
    reason:
      reasons.length === 0
        ? null
        : `The certified record does not verify: ${[...new Set(reasons)].join('; ')}.`,
  };
}

export type VerificationOutcome = Awaited<ReturnType<typeof verifyCertificate>>;
