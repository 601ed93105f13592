import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HtmlValidate } from 'html-validate';
import {
  EVIDENCE_VERIFIER_PAGE_CSP,
  EVIDENCE_VERIFIER_PAGE_HTML,
} from '../../../shared/generated/evidence-verifier-page.js';
import { ARTIFACTS, buildEvidenceVerifiers, REPO } from '../../../scripts/build-evidence-verifiers.js';

/**
 * The CLI (bin/verify-evidence.mjs), the offline page (docs/evidence-verifier.html) and the served page are
 * committed builds of the one verifier: this fails when one is stale. Fix: npm run build:evidence-verifiers.
 */
describe('offline evidence verifiers (generated files)', () => {
  let built: Awaited<ReturnType<typeof buildEvidenceVerifiers>>;
  beforeAll(async () => {
    built = await buildEvidenceVerifiers();
  });

  it.each(Object.entries(ARTIFACTS))('%s (%s) is up to date with its sources', (name, path) => {
    const committed = readFileSync(join(REPO, path), 'utf8');
    expect(committed === built[name as keyof typeof ARTIFACTS]).toBe(true);
  });

  it('serves the very page of the docs, with a CSP that allows exactly its inline script and style', () => {
    expect(EVIDENCE_VERIFIER_PAGE_HTML).toBe(readFileSync(join(REPO, ARTIFACTS.page), 'utf8'));
    const inline = (tag: string) => {
      const match = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(EVIDENCE_VERIFIER_PAGE_HTML);
      return createHash('sha256').update(match![1]!, 'utf8').digest('base64');
    };
    expect(EVIDENCE_VERIFIER_PAGE_CSP).toBe(
      `default-src 'none'; script-src 'sha256-${inline('script')}'; style-src 'sha256-${inline('style')}'; base-uri 'none'; form-action 'none'`,
    );
    expect(EVIDENCE_VERIFIER_PAGE_HTML).toContain(`content="${EVIDENCE_VERIFIER_PAGE_CSP}"`);
    // Nothing that could load anything: no src or href attribute, no URL but in text.
    expect(EVIDENCE_VERIFIER_PAGE_HTML).not.toMatch(/\s(src|href)=/);
  });

  it('is valid HTML', async () => {
    const report = await new HtmlValidate({
      extends: ['html-validate:recommended'],
      rules: { 'no-inline-style': 'off', 'require-sri': 'off' },
    }).validateString(EVIDENCE_VERIFIER_PAGE_HTML);
    expect(report.results.flatMap((r) => r.messages.map((m) => `${m.ruleId}: ${m.message}`))).toEqual([]);
  });
});
