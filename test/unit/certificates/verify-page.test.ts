import {
  escapeHtml,
  renderVerificationPage,
  VERIFICATION_PAGE_HEADERS,
} from '../../../shared/domain/certificates/verify-page.js';
import { certificateMetadata } from '../../../shared/domain/certificates/content.js';
import { sealedRecord } from './fixtures.js';

const hostile = '<script>alert("x")</script>&\'';

function view(valid: boolean) {
  const record = sealedRecord('DOCUMENT_REJECTED', { documentReference: hostile });
  return {
    valid,
    reason: valid ? null : `Tampered ${hostile}`,
    verifiedAt: '2026-11-21T15:00:00.000Z',
    certificate: {
      id: 'cert_1',
      ledgerRecordId: record.id,
      firmName: hostile,
      firmFrnNumber: '123456',
      issuedAt: '2026-11-21T14:03:29.004Z',
      pdfUrl: 'http://localhost/x?a=1&b="2"',
      metadata: certificateMetadata(record, null),
    },
    record,
  };
}

describe('verification page', () => {
  it('escapes every value and contains no script', () => {
    const html = renderVerificationPage(view(false));
    expect(html).not.toContain('<script');
    expect(html).toContain(escapeHtml(hostile));
    expect(html).toContain('href="http://localhost/x?a=1&amp;b=&quot;2&quot;"');
    expect(html).toContain('Invalid certificate');
    expect(escapeHtml(hostile)).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
  });

  it('says valid, invalid or not found', () => {
    expect(renderVerificationPage(view(true))).toContain('Valid certificate');
    expect(renderVerificationPage(view(true))).not.toContain('Invalid certificate');
    expect(renderVerificationPage(null)).toContain('Certificate not found');
  });

  it('is served as HTML that may run no script', () => {
    expect(VERIFICATION_PAGE_HEADERS['content-type']).toBe('text/html; charset=utf-8');
    expect(VERIFICATION_PAGE_HEADERS['content-security-policy']).toContain("default-src 'none'");
    expect(VERIFICATION_PAGE_HEADERS['content-security-policy']).not.toContain('script-src');
    expect(VERIFICATION_PAGE_HEADERS['content-security-policy']).not.toContain('unsafe-inline');
    expect(renderVerificationPage(null)).not.toMatch(/\sstyle=/);
  });
});
