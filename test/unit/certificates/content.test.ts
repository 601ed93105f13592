import { createHash } from 'node:crypto';
import {
  AUTO_ISSUED_EVENTS,
  certificateMetadata,
  certificatePdfKey,
  formatInstant,
  keyFingerprint,
  verificationUrl,
} from '../../../shared/domain/certificates/content.js';
import { RECORD_SUBSCRIBERS } from '../../../shared/workers/record-subscribers.js';
import { LEDGER_EVENT_TYPES } from '../../../shared/ledger/event-types.js';
import { PUBLIC_KEY, sealedRecord } from './fixtures.js';

const JOB = {
  documentReference: 'SR-2026-00412',
  documentType: 'suitability-report',
  documentHash: 'a'.repeat(64),
  outcome: 'REJECTED',
  outcomeReason: 'Affordability not evidenced',
  modifications: null,
  submittedAt: '2026-11-20T09:12:00.000Z',
  completedAt: '2026-11-21T14:03:27.512Z',
};

const fieldsOf = (metadata: ReturnType<typeof certificateMetadata>) =>
  Object.fromEntries(metadata.sections.flatMap((s) => s.fields.map((f) => [f.label, f.value])));

describe('certificate content', () => {
  it('auto-issues exactly the three review outcomes and assessment approvals, through the certificates queue', () => {
    expect([...AUTO_ISSUED_EVENTS].sort()).toEqual([
      'DOCUMENT_APPROVED',
      'DOCUMENT_MODIFIED',
      'DOCUMENT_REJECTED',
      'IMPACT_ASSESSMENT_APPROVED',
    ]);
    const subscriber = RECORD_SUBSCRIBERS.find((s) => s.queue === 'certificates')!;
    expect(LEDGER_EVENT_TYPES.filter((t) => subscriber.wants(t)).sort()).toEqual(
      [...AUTO_ISSUED_EVENTS].sort(),
    );
  });

  it('prints a rejection from the job: reference, type, hash, reviewer, outcome, reason, dates', () => {
    const metadata = certificateMetadata(sealedRecord('DOCUMENT_REJECTED', {}), JOB);
    expect(metadata.eventLabel).toBe('Advice document rejected');
    expect(metadata.statusPill).toEqual({ label: 'REJECTED', tone: 'negative' });
    expect(fieldsOf(metadata)).toMatchObject({
      'Document reference': 'SR-2026-00412',
      'Document type': 'suitability-report',
      'Document hash (SHA-256)': 'a'.repeat(64),
      Reviewer: 'Priya Raman (FCA PXR01234)',
      Outcome: 'Rejected',
      'Reason for rejection': 'Affordability not evidenced',
      'Submitted for review': '20 November 2026, 09:12:00 UTC',
      'Decision recorded': '21 November 2026, 14:03:27 UTC',
    });
  });

  it('prints modifications verbatim and falls back to the record metadata without a job', () => {
    const record = sealedRecord('DOCUMENT_MODIFIED', {
      documentReference: 'REF-9',
      documentType: 'pension-transfer',
      modifications: 'Replace "guaranteed" with "targeted".',
    });
    const fields = fieldsOf(certificateMetadata(record, null));
    expect(fields['Document reference']).toBe('REF-9');
    expect(fields['Modifications (verbatim)']).toBe('Replace "guaranteed" with "targeted".');
    expect(fields.Outcome).toBe('Approved with modifications');
  });

  it('prints an assessment approval from the record snapshot: use case, model, ratings, signer', () => {
    const record = sealedRecord('IMPACT_ASSESSMENT_APPROVED', {
      assessmentId: 'ia_1',
      useCase: 'AI-drafted suitability reports',
      modelProvider: 'anthropic',
      modelVersion: 'claude-3',
      templateVersion: 1,
      outcomes: { priceAndValue: { response: 'ok', rating: 'MEDIUM' } },
      signer: { name: 'Dr. Hannah Okafor', role: 'LEAD_REVIEWER' },
    });
    const metadata = certificateMetadata(record, null);
    expect(metadata.statusPill?.label).toBe('APPROVED');
    expect(fieldsOf(metadata)).toMatchObject({
      'Use case': 'AI-drafted suitability reports',
      'AI model': 'anthropic claude-3',
      'Price and value': 'Medium risk',
      'Signed off by': 'Dr. Hannah Okafor',
      Role: 'Lead reviewer',
    });
  });

  it('prints any other event from its metadata, with who recorded it and no pill', () => {
    const metadata = certificateMetadata(
      sealedRecord('CHAIN_VERIFIED', { valid: true, recordsChecked: 12 }),
      null,
    );
    expect(metadata.statusPill).toBeNull();
    expect(fieldsOf(metadata)).toMatchObject({ Valid: 'true', 'Records checked': '12', Name: 'Priya Raman' });
  });

  it('derives the fingerprint, the verification URL and the PDF key', () => {
    expect(keyFingerprint(PUBLIC_KEY)).toBe(
      createHash('sha256').update(Buffer.from(PUBLIC_KEY, 'base64')).digest('hex'),
    );
    expect(verificationUrl('https://ledger.example/', 'cert_1')).toBe('https://ledger.example/verify/cert_1');
    expect(certificatePdfKey('firm_1', 'cert_1')).toBe('certificates/firm_1/cert_1.pdf');
    expect(formatInstant('2026-01-02T03:04:05.000Z')).toBe('2 January 2026, 03:04:05 UTC');
  });
});
