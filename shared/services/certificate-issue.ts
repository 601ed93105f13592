import {
  certificateMetadata,
  certificatePdfKey,
  keyFingerprint,
  verificationUrl,
  type JobSnapshot,
} from '../domain/certificates/content.js';
import { renderCertificatePdf } from '../domain/certificates/pdf.js';
import { newId } from '../ids.js';
import type { RecordMessage } from '../ledger-writer/dispatch.js';
import type { LedgerRecord } from '../ledger/record.js';
import { keyProblemAt } from '../ledger/key-history.js';
import { signingKeyHistory } from './key-history.js';
import { checkRecord } from '../ledger/verify.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import {
  getCertificateForRecord,
  impactAssessmentKey,
  linkCertificate,
  reserveCertificateId,
  saveCertificate,
  type CertificateItem,
} from '../store/certificate-store.js';
import { getFirm } from '../store/firm-store.js';
import { keys } from '../store/keys.js';
import { getRecordById, getRecordBySequence } from '../store/ledger-store.js';
import { getJob } from '../store/review-job-store.js';

const OUTCOME_EVENTS = new Set(['DOCUMENT_APPROVED', 'DOCUMENT_MODIFIED', 'DOCUMENT_REJECTED']);

// Only the certificate worker imports this module: it is the one function that bundles pdf-lib and the QR
// encoder (routes stay within their bundle budget, docs/benchmarks.md).

/**
 * The certificate worker: issues the record's one certificate. Every step converges when repeated, so a
 * duplicate delivery, a request racing the auto-issue or a retry after a crash ends with the same result:
 * the first reservation fixes the certificate id and issue time, the PDF key derives from the id (a retry
 * overwrites it with the same document), the certificate item is created only if absent, and the job or
 * assessment link is set only while still null.
 */
export async function issueCertificate(deps: Deps, message: RecordMessage, publicBaseUrl: string) {
  const { firmId, recordId } = message;
  const existing = await getCertificateForRecord(deps, firmId, recordId);
  if (existing) {
    const record = await getRecordById(deps, firmId, recordId);
    if (record) await linkSubject(deps, record, existing.id);
    return existing;
  }
  const record =
    (await getRecordBySequence(deps, firmId, message.sequenceNumber)) ??
    (await getRecordById(deps, firmId, recordId));
  if (!record || record.id !== recordId || record.firmId !== firmId)
    throw new Error(`Ledger record ${recordId} of ${firmId} not found at sequence ${message.sequenceNumber}`);
  // Never certify a record that does not verify: the message fails, is retried, and ends in the DLQ.
  const problems: string[] = [...checkRecord(record)];
  const keyProblem = keyProblemAt(await signingKeyHistory(deps), record.publicKey, record.timestamp);
  if (keyProblem) problems.push(keyProblem);
  if (problems.length > 0)
    throw new Error(`Refusing to certify ${recordId}: it does not verify (${problems.join(', ')})`);

  const reservation = await reserveCertificateId(deps, firmId, recordId, {
    certificateId: newId('certificate'),
    reservedAt: isoNow(deps.clock),
  });
  const [firm, job] = await Promise.all([
    getFirm(deps, firmId),
    record.reviewJobId ? getJob(deps, firmId, record.reviewJobId) : Promise.resolve(null),
  ]);
  if (!firm) throw new Error(`Firm ${firmId} not found`);
  const certificateId = reservation.certificateId;
  const certificate: CertificateItem = {
    id: certificateId,
    ledgerRecordId: record.id,
    firmId,
    firmName: firm.name,
    firmFrnNumber: firm.frnNumber,
    issuedAt: reservation.reservedAt,
    verificationUrl: verificationUrl(publicBaseUrl, certificateId),
    pdfStorageKey: certificatePdfKey(firmId, certificateId),
    metadata: certificateMetadata(record, job as JobSnapshot | null),
    sequenceNumber: record.sequenceNumber,
    recordHash: record.recordHash,
    chainHash: record.chainHash,
  };
  const pdf = await renderCertificatePdf({
    certificateId,
    firmName: certificate.firmName,
    firmFrnNumber: certificate.firmFrnNumber,
    issuedAt: certificate.issuedAt,
    verificationUrl: certificate.verificationUrl,
    metadata: certificate.metadata,
    record,
    keyFingerprint: keyFingerprint(record.publicKey),
  });
  await deps.objects.put('certificates', certificate.pdfStorageKey, pdf, 'application/pdf');
  await saveCertificate(deps, certificate);
  await linkSubject(deps, record, certificateId);
  return certificate;
}

/** Fills the review job's (outcome records) or the impact assessment's (approvals) certificateId. */
async function linkSubject(deps: Deps, record: LedgerRecord, certificateId: string): Promise<void> {
  if (OUTCOME_EVENTS.has(record.eventType) && record.reviewJobId)
    await linkCertificate(deps, keys.job(record.firmId, record.reviewJobId), certificateId);
  const assessmentId = record.documentMetadata.assessmentId;
  if (record.eventType === 'IMPACT_ASSESSMENT_APPROVED' && typeof assessmentId === 'string' && assessmentId)
    await linkCertificate(deps, impactAssessmentKey(record.firmId, assessmentId), certificateId);
}
