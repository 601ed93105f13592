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
    log: {
      inclusion: 'verified' as const,
      origin: 'ledger.example.test/ledger/firm_1',
      leafIndex: record.sequenceNumber - 1,
      treeSize: 9,
      checkpoint: `ledger.example.test/ledger/firm_1\n9\n${hostile}\n`,
      signedAt: '2026-11-21T14:59:00.000Z',
      logSignatures: ['ecdsa' as const, 'ed25519' as const],
      cosignedBy: [{ name: 'witness.example/w', keyId: '0a1b2c3d', timestamp: '2026-11-21T14:59:01.000Z' }],
      statement: `Included in ledger.example.test/ledger/firm_1 at size 9 ${hostile}`,
    },
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

  it('shows what the verifiable log says: the sentence, the facts, the signed checkpoint', () => {
    const html = renderVerificationPage(view(true));
    expect(html).toContain(
      `<p class="log-statement">Included in ledger.example.test/ledger/firm_1 at size 9 ${escapeHtml(hostile)}</p>`,
    );
    expect(html).toContain('<dt>Checkpoint tree size</dt><dd>9</dd>');
    expect(html).toContain('Ledger key (ECDSA P-256, 0x02), Checkpoint key (Ed25519, 0x01)');
    expect(html).toContain('witness.example/w (');
    expect(html).toContain(
      `<pre class="mono">ledger.example.test/ledger/firm_1\n9\n${escapeHtml(hostile)}\n</pre>`,
    );
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
