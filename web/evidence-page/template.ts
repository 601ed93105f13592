import { createHash } from 'node:crypto';

/**
 * The HTML of the offline evidence page around its bundled script. Everything is inline (one file that works
 * from disk, as docs/evidence-verifier.html, and served at /verify/offline); the Content-Security-Policy allows
 * exactly this script and this style by their SHA-256 and nothing else: no request of any kind.
 */

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f242e;background:#f3f5f8}
header{background:#12305a;color:#fff;padding:14px 20px;font-size:13px;letter-spacing:.08em;text-transform:uppercase;font-weight:600}
main{max-width:820px;margin:0 auto;padding:16px}
h1{font-size:24px;line-height:1.25}
.card{background:#fff;border:1px solid #d5d9e0;border-radius:10px;padding:16px 20px;margin:0 0 16px}
#drop-zone{border:2px dashed #8a94a6;border-radius:10px;padding:28px 20px;text-align:center;background:#fff}
#drop-zone.over{border-color:#12305a;background:#e8eef8}
label{font-weight:600;display:block;margin-bottom:8px}
#policy label{margin-top:12px}
textarea,input[type=number]{width:100%;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;padding:6px;border:1px solid #8a94a6;border-radius:6px}
input[type=number]{max-width:10em}
.card h2{font-size:16px;margin:0 0 4px}
.verdict{border-radius:10px;padding:16px 20px;margin:16px 0;color:#fff;background:#545c6b}
.verdict h2{margin:0 0 4px;font-size:22px}
.verdict p{margin:0}
.verdict.valid[data-valid=true]{background:#17733d}.verdict.invalid[data-valid=false]{background:#b22222}
li{margin:4px 0;overflow-wrap:anywhere}
.mono,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #d5d9e0;padding:12px;border-radius:6px}
footer{font-size:13px;color:#5f6776;max-width:820px;margin:0 auto;padding:0 16px 24px}
`;

const sha256Base64 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

/** The policy for the page's own script and style: also what the served page sends as a header. */
export function pageCsp(script: string, style: string = STYLE): string {
  return [
    "default-src 'none'",
    `script-src 'sha256-${sha256Base64(script)}'`,
    `style-src 'sha256-${sha256Base64(style)}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export function renderOfflinePage(script: string): { html: string; csp: string } {
  if (script.toLowerCase().includes('</script')) throw new Error('the bundled script must not close its tag');
  const csp = pageCsp(script);
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<title>Verify a ledger evidence bundle offline</title>
<style>${STYLE}</style>
</head>
<body>
<header>Governance Ledger · offline evidence verifier</header>
<main>
<h1>Verify an evidence bundle, offline</h1>
<div class="card">
<p>Checks a bundle from <code>GET /v1/ledger/export</code> entirely in this browser: each record's hash, its chain
hash and link to the record before it, its ECDSA P-256 signature, that its key was valid and not revoked at the
record's time, and that no record is missing; and, when the bundle carries the firm's verifiable log, each
record's inclusion proof and both checkpoint signatures. The bundle never leaves this page; the page makes no
request. Save this page to verify without any network.</p>
</div>
<div id="policy" class="card">
<h2>Witness policy and a kept checkpoint (optional)</h2>
<p>The same as <code>--witness</code>, <code>--witnesses-needed</code> and <code>--since</code> of the command line.
Fill these in before choosing the bundle; changing them checks the last bundle again.</p>
<label for="witness-vkeys">Witness vkeys, one per line</label>
<textarea id="witness-vkeys" rows="3" spellcheck="false"></textarea>
<label for="witnesses-needed">Witnesses needed (empty: all of them)</label>
<input type="number" id="witnesses-needed" min="0" step="1">
<label for="kept-checkpoint">A checkpoint you kept (its signed note): the bundle's must extend it</label>
<textarea id="kept-checkpoint" rows="6" spellcheck="false"></textarea>
</div>
<div id="drop-zone" class="card">
<label for="bundle-file">Evidence bundle (JSON file)</label>
<input type="file" id="bundle-file" accept="application/json,.json">
<p>or drop the file here</p>
</div>
<div id="result" aria-live="polite"></div>
</main>
<footer>The same checks as <code>npm run --silent verify-evidence -- bundle.json</code>; the format is in docs/ledger-format.md, "Evidence bundles".</footer>
<script>${script}</script>
</body>
</html>
`;
  return { html, csp };
}
