import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { certificateMetadata, keyFingerprint } from '../../../shared/domain/certificates/content.js';
import { renderCertificatePdf, type CertificateDocument } from '../../../shared/domain/certificates/pdf.js';
import { sealedRecord } from './fixtures.js';

function documentFor(modifications: string): CertificateDocument {
  const record = sealedRecord('DOCUMENT_MODIFIED', {
    documentReference: 'SR-1',
    documentType: 'suitability-report',
    modifications,
  });
  return {
    certificateId: 'cert_01JDX3K9ZP4R6T8V0X2Z4B6D8F',
    firmName: 'Hartley & Crane Wealth — Ünïcode ✓ 中文 LLP',
    firmFrnNumber: '123456',
    issuedAt: '2026-11-21T14:03:29.004Z',
    verificationUrl: 'https://ledger.example/verify/cert_01JDX3K9ZP4R6T8V0X2Z4B6D8F',
    metadata: certificateMetadata(record, null),
    record,
    keyFingerprint: keyFingerprint(record.publicKey),
  };
}

const pdftotext = (file: string) => execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });

describe('certificate PDF', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gls-cert-pdf-'));

  it('passes qpdf --check and carries the record evidence as text', async () => {
    const doc = documentFor('Replace "guaranteed" with "targeted".');
    const file = join(dir, 'one.pdf');
    writeFileSync(file, await renderCertificatePdf(doc));
    // qpdf exits non-zero on any structural error.
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toContain(
      'No syntax or stream encoding errors found',
    );
    const text = pdftotext(file);
    for (const expected of [
      'Certificate of Ledger Record',
      'FCA Firm Reference Number (FRN): 123456',
      'Advice document approved with modifications',
      'APPROVED WITH MODIFICATIONS',
      doc.record.recordHash,
      doc.record.chainHash,
      doc.keyFingerprint,
      doc.verificationUrl,
      'Replace "guaranteed" with "targeted".',
    ])
      expect(text).toContain(expected);
    // Characters the standard fonts cannot encode are replaced, not fatal.
    expect(text).toContain('Hartley & Crane Wealth');
  });

  it('is deterministic (a re-generation converges on the same bytes) and flows onto more pages when long', async () => {
    const doc = documentFor('word '.repeat(4000));
    const a = await renderCertificatePdf(doc);
    const b = await renderCertificatePdf(doc);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    expect((await PDFDocument.load(a)).getPageCount()).toBeGreaterThan(1);
    const file = join(dir, 'long.pdf');
    writeFileSync(file, a);
    execFileSync('qpdf', ['--check', file]);
    expect(pdftotext(file)).toContain(doc.record.signature.slice(0, 40));
  });
});
