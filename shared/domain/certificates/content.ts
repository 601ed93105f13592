import { createHash } from 'node:crypto';
import type { LedgerEventType } from '../../ledger/event-types.js';
import type { LedgerRecord } from '../../ledger/record.js';

/** The ledger events a certificate is issued for without being asked (review outcomes, assessment approval). */
export const AUTO_ISSUED_EVENTS: ReadonlySet<LedgerEventType> = new Set([
  'DOCUMENT_APPROVED',
  'DOCUMENT_MODIFIED',
  'DOCUMENT_REJECTED',
  'IMPACT_ASSESSMENT_APPROVED',
]);

export type PillTone = 'positive' | 'caution' | 'negative' | 'neutral';

export interface CertificateField {
  label: string;
  value: string;
  /** Hashes, ids and signatures: printed in a fixed-width face and wrapped anywhere. */
  monospace?: boolean;
}

export interface CertificateSection {
  heading: string;
  fields: CertificateField[];
}

/** The Certificate's `metadata`: everything the PDF and the verification page print beyond the record. */
export interface CertificateMetadata {
  eventType: LedgerEventType;
  eventLabel: string;
  statusPill: { label: string; tone: PillTone } | null;
  sections: CertificateSection[];
}

/** The review job fields a review-outcome certificate prints (the job item, when the record names one). */
export interface JobSnapshot {
  documentReference: string;
  documentType: string;
  documentHash: string;
  clientReference?: string;
  outcome: string | null;
  outcomeReason: string | null;
  modifications: string | null;
  submittedAt: string;
  completedAt: string | null;
  slaDeadline?: string;
}

const EVENT_LABELS: Record<LedgerEventType, string> = {
  GENERATION_RECORDED: 'AI generation recorded',
  DOCUMENT_SUBMITTED: 'Advice document submitted for review',
  REVIEW_STARTED: 'Review started',
  REVIEW_COMPLETED: 'Review completed',
  DOCUMENT_APPROVED: 'Advice document approved',
  DOCUMENT_MODIFIED: 'Advice document approved with modifications',
  DOCUMENT_REJECTED: 'Advice document rejected',
  CERTIFICATE_ISSUED: 'Certificate issued',
  CHAIN_VERIFIED: 'Ledger chain verified',
  CHAIN_REPAIRED: 'Ledger record restored from immutable backup',
  SLA_BREACHED: 'Review SLA breached',
  JOB_ESCALATED: 'Review escalated to senior sign-off',
  IMPACT_ASSESSMENT_APPROVED: 'Consumer Duty impact assessment approved',
  INCIDENT_LOGGED: 'Incident logged',
  INCIDENT_RESOLVED: 'Incident resolved',
  ASSURANCE_REVIEW_SIGNED: 'Assurance review signed off',
  FIRM_SETTINGS_UPDATED: 'Compliance settings changed',
  SIGNING_KEY_ROTATED: 'Ledger signing key rotated',
  LOG_WITNESS_REFUSED: 'A witness refused a checkpoint of the verifiable log',
};

const PILLS: Partial<Record<LedgerEventType, { label: string; tone: PillTone }>> = {
  DOCUMENT_APPROVED: { label: 'APPROVED', tone: 'positive' },
  DOCUMENT_MODIFIED: { label: 'APPROVED WITH MODIFICATIONS', tone: 'caution' },
  DOCUMENT_REJECTED: { label: 'REJECTED', tone: 'negative' },
  IMPACT_ASSESSMENT_APPROVED: { label: 'APPROVED', tone: 'positive' },
  CHAIN_REPAIRED: { label: 'RESTORED', tone: 'caution' },
  SLA_BREACHED: { label: 'SLA BREACHED', tone: 'negative' },
  INCIDENT_LOGGED: { label: 'INCIDENT', tone: 'caution' },
  INCIDENT_RESOLVED: { label: 'RESOLVED', tone: 'positive' },
};

const OUTCOME_LABELS: Record<string, string> = {
  APPROVED: 'Approved as drafted',
  APPROVED_WITH_MODIFICATIONS: 'Approved with modifications',
  REJECTED: 'Rejected',
};

const NONE = '—';

/** Lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (what /.well-known/signing-key calls fingerprint). */
export function keyFingerprint(publicKeyBase64: string): string {
  return createHash('sha256').update(Buffer.from(publicKeyBase64, 'base64')).digest('hex');
}

/** `<base>/verify/<certificateId>`: the page a QR code scan opens. */
export function verificationUrl(publicBaseUrl: string, certificateId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/verify/${encodeURIComponent(certificateId)}`;
}

/** Object key of a certificate's PDF: derived from the certificate id alone, so every retry writes the same key. */
export function certificatePdfKey(firmId: string, certificateId: string): string {
  return `certificates/${firmId}/${certificateId}.pdf`;
}

/**
 * What a certificate says about its record: the event label, a status pill and the event-specific sections.
 * Review outcomes print the job (when the record names one) with the record's own metadata as a fallback;
 * an assessment approval prints the snapshot the record carries; any other event prints its metadata.
 */
export function certificateMetadata(record: LedgerRecord, job: JobSnapshot | null): CertificateMetadata {
  const eventType = record.eventType;
  const meta = record.documentMetadata;
  const sections: CertificateSection[] = [];
  if (
    eventType === 'DOCUMENT_APPROVED' ||
    eventType === 'DOCUMENT_MODIFIED' ||
    eventType === 'DOCUMENT_REJECTED'
  ) {
    sections.push(...reviewSections(record, job));
  } else if (eventType === 'IMPACT_ASSESSMENT_APPROVED') {
    sections.push(...assessmentSections(record));
  } else {
    const fields = flatten(meta).slice(0, 24);
    if (record.documentHash)
      fields.unshift({ label: 'Document hash (SHA-256)', value: record.documentHash, monospace: true });
    if (record.reviewJobId)
      fields.unshift({ label: 'Review job', value: record.reviewJobId, monospace: true });
    sections.push({
      heading: 'Event details',
      fields: fields.length > 0 ? fields : [{ label: 'Details', value: NONE }],
    });
  }
  // Review outcomes name the reviewer and assessments their signer; any other event names who recorded it.
  if (!AUTO_ISSUED_EVENTS.has(eventType))
    sections.push({
      heading: 'Recorded by',
      fields: [
        { label: 'Name', value: record.actorName || NONE },
        { label: 'FCA reference', value: record.actorFcaRef ?? NONE },
      ],
    });
  return { eventType, eventLabel: EVENT_LABELS[eventType], statusPill: PILLS[eventType] ?? null, sections };
}

function reviewSections(record: LedgerRecord, job: JobSnapshot | null): CertificateSection[] {
  const meta = record.documentMetadata;
  const pick = (name: keyof JobSnapshot): string | null => {
    const fromJob = job?.[name];
    if (typeof fromJob === 'string' && fromJob !== '') return fromJob;
    const fromMeta = meta[name];
    return typeof fromMeta === 'string' && fromMeta !== '' ? fromMeta : null;
  };
  const outcome =
    pick('outcome') ??
    {
      DOCUMENT_APPROVED: 'APPROVED',
      DOCUMENT_MODIFIED: 'APPROVED_WITH_MODIFICATIONS',
      DOCUMENT_REJECTED: 'REJECTED',
    }[record.eventType as 'DOCUMENT_APPROVED'];
  const document: CertificateField[] = [
    { label: 'Document reference', value: pick('documentReference') ?? NONE },
    { label: 'Document type', value: pick('documentType') ?? NONE },
    {
      label: 'Document hash (SHA-256)',
      value: record.documentHash || pick('documentHash') || NONE,
      monospace: true,
    },
  ];
  const clientReference = pick('clientReference');
  if (clientReference) document.push({ label: 'Client reference', value: clientReference });
  if (record.reviewJobId) document.push({ label: 'Review job', value: record.reviewJobId, monospace: true });

  const decision: CertificateField[] = [
    { label: 'Outcome', value: OUTCOME_LABELS[outcome] ?? outcome },
    { label: 'Reviewer', value: reviewerOf(record) },
  ];
  if (record.eventType === 'DOCUMENT_MODIFIED')
    decision.push({ label: 'Modifications (verbatim)', value: pick('modifications') ?? NONE });
  const reason = pick('outcomeReason');
  if (record.eventType === 'DOCUMENT_REJECTED' || reason)
    decision.push({
      label: record.eventType === 'DOCUMENT_REJECTED' ? 'Reason for rejection' : 'Reviewer notes',
      value: reason ?? NONE,
    });

  document.push({ label: 'Submitted for review', value: formatInstant(pick('submittedAt')) });
  decision.push({
    label: 'Decision recorded',
    value: formatInstant(pick('completedAt') ?? record.timestamp),
  });
  return [
    { heading: 'Advice document', fields: document },
    { heading: 'Review decision', fields: decision },
  ];
}

function assessmentSections(record: LedgerRecord): CertificateSection[] {
  const meta = record.documentMetadata;
  const text = (...names: string[]): string | null => {
    for (const name of names) {
      const value = meta[name];
      if (typeof value === 'string' && value !== '') return value;
      if (typeof value === 'number') return String(value);
    }
    return null;
  };
  const model = meta.model && typeof meta.model === 'object' ? (meta.model as Record<string, unknown>) : {};
  const provider = text('modelProvider') ?? (typeof model.provider === 'string' ? model.provider : null);
  const version = text('modelVersion') ?? (typeof model.version === 'string' ? model.version : null);
  const assessment: CertificateField[] = [
    { label: 'Use case', value: text('useCase') ?? NONE },
    {
      label: 'AI model',
      value: provider || version ? [provider, version].filter(Boolean).join(' ') : 'Not tied to a model',
    },
    { label: 'Template version', value: text('templateVersion') ?? NONE },
    { label: 'Assessment', value: text('assessmentId', 'impactAssessmentId') ?? NONE, monospace: true },
  ];
  const ratings: CertificateField[] = [];
  const outcomes =
    meta.outcomes && typeof meta.outcomes === 'object' ? (meta.outcomes as Record<string, unknown>) : {};
  for (const [area, value] of Object.entries(outcomes)) {
    const entry = value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
    const rating = entry.riskRating ?? entry.rating ?? (typeof value === 'string' ? value : null);
    ratings.push({
      label: humanise(area),
      value: typeof rating === 'string' ? `${humanise(rating)} risk` : NONE,
    });
  }
  const signerObject = [meta.signer, meta.signedOffBy].find((v) => v && typeof v === 'object') as
    Record<string, unknown> | undefined;
  const signerName =
    (typeof meta.signer === 'string' ? meta.signer : null) ??
    (typeof signerObject?.name === 'string' ? signerObject.name : null) ??
    record.actorName;
  const signer: CertificateField[] = [
    { label: 'Signed off by', value: signerName || NONE },
    { label: 'Role', value: typeof signerObject?.role === 'string' ? humanise(signerObject.role) : NONE },
    { label: 'Signed off at', value: formatInstant(text('signedOffAt') ?? record.timestamp) },
  ];
  return [
    { heading: 'Impact assessment', fields: assessment },
    {
      heading: 'Outcome ratings',
      fields: ratings.length > 0 ? ratings : [{ label: 'Ratings', value: NONE }],
    },
    { heading: 'Senior sign-off', fields: signer },
  ];
}

function reviewerOf(record: LedgerRecord): string {
  return record.actorFcaRef ? `${record.actorName} (FCA ${record.actorFcaRef})` : record.actorName || NONE;
}

/** Scalars of a metadata object as labelled fields, nested objects as `parent / child`. */
function flatten(value: Record<string, unknown>, prefix = ''): CertificateField[] {
  const fields: CertificateField[] = [];
  for (const [key, item] of Object.entries(value)) {
    const label = prefix ? `${prefix} / ${humanise(key)}` : humanise(key);
    if (item === null || item === undefined) fields.push({ label, value: NONE });
    else if (Array.isArray(item))
      fields.push({
        label,
        value: item.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ') || NONE,
      });
    else if (typeof item === 'object') fields.push(...flatten(item as Record<string, unknown>, label));
    else fields.push({ label, value: String(item), monospace: /hash|id$/i.test(key) });
  }
  return fields;
}

/** `documentReference` → `Document reference`. */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** `2026-03-01T10:15:00.000Z` → `1 March 2026, 10:15:00 UTC`; anything unparsable is printed as given. */
export function formatInstant(value: string | null | undefined): string {
  if (!value) return NONE;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  const day = date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const time = date.toISOString().slice(11, 19);
  return `${day}, ${time} UTC`;
}
