import { webEvidenceCrypto } from '../../shared/ledger/evidence-crypto-web.js';
import { LogPolicyError, readLogPolicy } from '../../shared/ledger/evidence-policy.js';
import { verifyEvidenceBundle, type EvidenceVerdict } from '../../shared/ledger/evidence-verify.js';

/**
 * The script of the offline evidence page (/verify/offline, docs/evidence-verifier.html): reads a bundle
 * dropped on the page or chosen with the file input, verifies it in the browser with the same verifier as the
 * CLI (WebCrypto for the hashes and signatures) under the same log policy (witness vkeys, how many must have
 * cosigned, a kept checkpoint: read by the CLI's own readLogPolicy), and shows the verdict. Nothing leaves the page: it makes no
 * request at all (its CSP forbids any). Bundled into the page by scripts/build-evidence-verifiers.ts.
 */

const crypto = webEvidenceCrypto();

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function show(verdict: EvidenceVerdict | null, title: string, detail: string): void {
  const out = document.getElementById('result')!;
  out.replaceChildren();
  const banner = element('section', undefined, `verdict ${verdict?.valid ? 'valid' : 'invalid'}`);
  banner.id = 'verdict';
  banner.dataset.valid = String(verdict?.valid ?? false);
  banner.append(element('h2', title), element('p', detail));
  out.append(banner);
  if (!verdict) return;
  if (verdict.failures.length > 0) {
    const list = element('ul');
    list.id = 'failures';
    for (const f of verdict.failures) {
      const item = element('li');
      item.dataset.code = f.code;
      item.dataset.reason = f.reason;
      const where = f.sequenceNumber === null ? 'bundle' : `record ${f.sequenceNumber}`;
      item.append(element('strong', `${f.code} (${f.reason})`), ` ${where}: ${f.message}`);
      list.append(item);
    }
    out.append(element('h3', 'Failures'), list);
  }
  if (verdict.keys.length > 0) {
    const keys = element('ul', undefined, 'mono');
    for (const k of verdict.keys)
      keys.append(
        element(
          'li',
          `${k.fingerprint}  ${k.validFrom} → ${k.validUntil ?? 'current'}${k.revokedFrom ? `, revoked from ${k.revokedFrom}` : ''}`,
        ),
      );
    out.append(
      element('h3', 'Keys trusted by the bundle (compare with the published /.well-known/signing-keys)'),
      keys,
    );
  }
  const raw = element('details');
  raw.append(element('summary', 'The verdict as JSON (the same as the CLI prints)'));
  const pre = element('pre', JSON.stringify(verdict, null, 2), 'mono');
  pre.id = 'verdict-json';
  raw.append(pre);
  out.append(raw);
}

const field = (id: string) => document.getElementById(id) as HTMLTextAreaElement | HTMLInputElement;

/** What the log says, in one sentence, when the bundle carries it. */
function logSummary(verdict: EvidenceVerdict): string {
  const log = verdict.log;
  if (!log) return '';
  const cosigned =
    log.cosignedBy.length > 0
      ? `cosigned by ${log.cosignedBy.join(', ')}`
      : 'cosigned by none of the given witnesses';
  const since = log.since
    ? log.since.consistent
      ? `; it extends the kept checkpoint of size ${log.since.size}`
      : `; it does NOT extend the kept checkpoint of size ${log.since.size}`
    : '';
  return ` Included in ${log.origin} at size ${log.size} (${log.included} record(s) proved), ${cosigned}${since}.`;
}

let lastFile: File | null = null;
let runs = 0;

async function verifyFile(file: File): Promise<void> {
  lastFile = file;
  const run = ++runs;
  const current = () => run === runs;
  show(null, 'Checking…', file.name);
  let policy;
  try {
    policy = readLogPolicy({
      witnesses: field('witness-vkeys').value.split('\n'),
      witnessesNeeded: field('witnesses-needed').value,
      since: field('kept-checkpoint').value,
    });
  } catch (error) {
    if (!(error instanceof LogPolicyError)) throw error;
    show(null, 'The witness policy cannot be used', error.message);
    return;
  }
  let bundle: unknown;
  try {
    bundle = JSON.parse(await file.text());
  } catch (error) {
    if (current()) show(null, 'Unreadable file', `${file.name} is not JSON: ${(error as Error).message}`);
    return;
  }
  const verdict = await verifyEvidenceBundle(bundle, crypto, policy);
  if (!current()) return;
  const summary = verdict.valid
    ? `All ${verdict.recordsChecked} records of firm ${verdict.firmId} verify (sequence ${verdict.covered?.fromSequence} to ${verdict.covered?.toSequence}).${logSummary(verdict)}`
    : `${verdict.failures.length} failure(s) in ${file.name}.`;
  show(verdict, verdict.valid ? 'Evidence verified' : 'Evidence does NOT verify', summary);
}

for (const id of ['witness-vkeys', 'witnesses-needed', 'kept-checkpoint'])
  field(id).addEventListener('change', () => {
    if (lastFile) void verifyFile(lastFile);
  });

const input = document.getElementById('bundle-file') as HTMLInputElement;
input.addEventListener('change', () => {
  const file = input.files?.[0];
  if (file) void verifyFile(file);
});
const zone = document.getElementById('drop-zone')!;
zone.addEventListener('dragover', (event) => {
  event.preventDefault();
  zone.classList.add('over');
});
zone.addEventListener('dragleave', () => zone.classList.remove('over'));
zone.addEventListener('drop', (event) => {
  event.preventDefault();
  zone.classList.remove('over');
  const file = event.dataTransfer?.files[0];
  if (file) void verifyFile(file);
});
document.body.dataset.ready = 'true';
