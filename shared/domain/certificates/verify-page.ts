import { createHash } from 'node:crypto';
import { formatInstant, keyFingerprint, type CertificateMetadata } from './content.js';
import type { CertificateLogView } from './log-view.js';

/** What the page shows: a verification result (GET /v1/verify/{certificateId}). */
export interface VerificationView {
  valid: boolean;
  reason: string | null;
  verifiedAt: string;
  certificate: {
    id: string;
    ledgerRecordId: string;
    firmName: string;
    firmFrnNumber: string;
    issuedAt: string;
    pdfUrl: string;
    metadata: CertificateMetadata;
  };
  record: {
    id: string;
    sequenceNumber: number;
    recordHash: string;
    chainHash: string;
    signature: string;
    publicKey: string;
  };
  log: CertificateLogView;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f242e;background:#f3f5f8}
header{background:#12305a;color:#fff;padding:14px 20px;font-size:13px;letter-spacing:.08em;text-transform:uppercase;font-weight:600}
main{max-width:720px;margin:0 auto;padding:16px}
.verdict{border-radius:10px;padding:18px 20px;margin:8px 0 16px;color:#fff}
.verdict h1{margin:0 0 4px;font-size:24px;line-height:1.25}
.verdict p{margin:0}
.valid{background:#17733d}.invalid{background:#b22222}.unknown{background:#545c6b}
.pill.positive{background:#17733d}.pill.caution{background:#a86b05}.pill.negative{background:#b22222}.pill.neutral{background:#545c6b}
.card{background:#fff;border:1px solid #d5d9e0;border-radius:10px;padding:16px 20px;margin:0 0 16px}
.card h2{font-size:13px;letter-spacing:.08em;text-transform:uppercase;color:#12305a;margin:0 0 10px;border-bottom:1px solid #d5d9e0;padding-bottom:6px}
.firm{font-size:20px;font-weight:700;margin:0}
.muted{color:#5f6776}
.pill{display:inline-block;color:#fff;font-size:12px;font-weight:700;letter-spacing:.04em;border-radius:4px;padding:3px 10px;margin-top:6px}
dl{margin:0}
dt{font-size:13px;color:#5f6776;margin-top:8px}
dd{margin:0;overflow-wrap:anywhere}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
a{color:#12305a}
footer{font-size:13px;color:#5f6776;padding:0 4px 24px}
.log-statement{font-weight:600;margin:0 0 8px;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:8px 0 0}
@media (min-width:600px){dl{display:grid;grid-template-columns:190px 1fr;column-gap:16px}dt{margin-top:6px}dd{margin-top:6px}}
`;

/**
 * Headers of the page: HTML that runs no script and loads nothing (the CSP allows exactly its one style element,
 * by the SHA-256 of its text: no 'unsafe-inline', no style attribute), never cached (a verdict is only as fresh as
 * its check), never framed, and no referrer leaks the URL.
 */
export const VERIFICATION_PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': `default-src 'none'; style-src '${styleHash(STYLE)}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** A CSP source for an inline style element with exactly this text (CSP Level 2 hash source). */
export function styleHash(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

function page(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>Governance Ledger Service &middot; Certificate verification</header>
<main>
${body}
</main>
</body>
</html>
`;
}

function fields(rows: { label: string; value: string; monospace?: boolean }[]): string {
  return `<dl>${rows
    .map(
      (row) =>
        `<dt>${escapeHtml(row.label)}</dt><dd${row.monospace ? ' class="mono"' : ''}>${escapeHtml(row.value)}</dd>`,
    )
    .join('')}</dl>`;
}

const INCLUSION_LABELS = {
  verified: 'Inclusion proof verified',
  failed: 'Inclusion proof does NOT verify',
  pending: 'Not yet in a checkpoint',
  'no-checkpoint': 'The log has no checkpoint',
} as const;

const SIGNATURE_LABELS = {
  ecdsa: 'Ledger key (ECDSA P-256, 0x02)',
  ed25519: 'Checkpoint key (Ed25519, 0x01)',
};

/** The verifiable log's card: its sentence, then the facts behind it and the signed checkpoint itself. */
function logSection(log: CertificateLogView): string {
  const rows = [
    { label: 'Inclusion', value: INCLUSION_LABELS[log.inclusion] },
    ...(log.origin ? [{ label: 'Log origin', value: log.origin, monospace: true }] : []),
    { label: 'Leaf index', value: String(log.leafIndex) },
  ];
  if (log.treeSize !== null) {
    rows.push({ label: 'Checkpoint tree size', value: String(log.treeSize) });
    rows.push({ label: 'Checkpoint signed', value: formatInstant(log.signedAt) });
    rows.push({
      label: 'Log signatures verified',
      value: log.logSignatures.map((s) => SIGNATURE_LABELS[s]).join(', ') || 'none',
    });
    rows.push({
      label: 'Cosigned by',
      value:
        log.cosignedBy.map((c) => `${c.name} (${formatInstant(c.timestamp)})`).join(', ') ||
        'no witness known to this service',
    });
  }
  const checkpoint = log.checkpoint
    ? `<details><summary>The signed checkpoint (C2SP signed note)</summary><pre class="mono">${escapeHtml(log.checkpoint)}</pre></details>`
    : '';
  return `<section class="card"><h2>Verifiable log</h2><p class="log-statement">${escapeHtml(log.statement)}</p>${fields(rows)}${checkpoint}</section>`;
}

/** The verification page for a result, or the not-found page (`null`). Every value is escaped. */
export function renderVerificationPage(view: VerificationView | null): string {
  if (!view) {
    return page(
      'Certificate not found',
      `<section class="verdict unknown"><h1>Certificate not found</h1><p>No certificate with this identifier was issued by this service. Check the address against the printed certificate.</p></section>`,
    );
  }
  const { certificate, record, metadata } = { ...view, metadata: view.certificate.metadata };
  const verdict = view.valid
    ? `<section class="verdict valid"><h1>&#10003; Valid certificate</h1><p>The certified ledger record is intact: its hash, chain link and signature verify, and it matches its immutable backup copy.</p></section>`
    : `<section class="verdict invalid"><h1>&#10007; Invalid certificate</h1><p>${escapeHtml(view.reason ?? 'The certified record does not verify.')}</p></section>`;
  const pill = metadata.statusPill
    ? `<div><span class="pill ${metadata.statusPill.tone}">${escapeHtml(metadata.statusPill.label)}</span></div>`
    : '';
  const sections = metadata.sections
    .map(
      (section) =>
        `<section class="card"><h2>${escapeHtml(section.heading)}</h2>${fields(section.fields)}</section>`,
    )
    .join('\n');
  const evidence = fields([
    { label: 'Sequence number', value: String(record.sequenceNumber) },
    { label: 'Ledger record', value: record.id, monospace: true },
    { label: 'Record hash (SHA-256)', value: record.recordHash, monospace: true },
    { label: 'Chain hash', value: record.chainHash, monospace: true },
    { label: 'Signature (ECDSA P-256)', value: record.signature, monospace: true },
    {
      label: 'Signing key fingerprint',
      value: record.publicKey ? keyFingerprint(record.publicKey) : '\u2014',
      monospace: true,
    },
  ]);
  return page(
    `${view.valid ? 'Valid' : 'Invalid'} certificate ${certificate.id}`,
    `${verdict}
<section class="card">
<h2>Issued to</h2>
<p class="firm">${escapeHtml(certificate.firmName)}</p>
<p class="muted">FCA Firm Reference Number (FRN): ${escapeHtml(certificate.firmFrnNumber)}</p>
<p><strong>${escapeHtml(metadata.eventLabel)}</strong></p>
${pill}
</section>
${sections}
<section class="card"><h2>Ledger evidence</h2>${evidence}</section>
${logSection(view.log)}
<section class="card"><h2>Certificate</h2>${fields([
      { label: 'Certificate', value: certificate.id, monospace: true },
      { label: 'Issued', value: formatInstant(certificate.issuedAt) },
      { label: 'Checked', value: formatInstant(view.verifiedAt) },
    ])}
<p><a href="${escapeHtml(certificate.pdfUrl)}" rel="noopener noreferrer">Download the certificate PDF</a> <span class="muted">(link valid for 15 minutes)</span></p>
</section>
<footer>This page checks the record each time it is opened. The record can also be checked independently of this service with the published signing key (GET /.well-known/signing-key).</footer>`,
  );
}
