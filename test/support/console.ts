import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { buildConsoleIfStale } from '../../scripts/console-build.js';
import { ROOT } from './local-stack.js';

/**
 * Browser helpers for the web console's end-to-end tests (issue 16): Debian's Chromium through playwright-core,
 * signing in through the local dev issuer's authorization page, and axe-core checks.
 */

/** Builds console/dist when any console or client source is newer (as npm start and npm test do). */
export function ensureConsoleBuilt(): void {
  buildConsoleIfStale({ quiet: true });
}

/** A phone-sized viewport (the console must work from 390 px wide). */
export const PHONE = { width: 390, height: 844 } as const;

/** A fresh browser context (its own cookies and storage); `phone` for a 390 px wide viewport. */
export function newContext(browser: Browser, options: { phone?: boolean } = {}): Promise<BrowserContext> {
  return browser.newContext(options.phone ? { viewport: PHONE, isMobile: true, hasTouch: true } : {});
}

/**
 * Records the page's console errors and failed requests (a CSP violation is a console error), so a test can
 * assert the console ran cleanly: `expect(problems).toEqual([])`.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/**
 * Signs `email` in through the console's sign-in button and the local issuer's authorization page (the field
 * labelled Email, the button Sign in), then waits until the console shows the signed-in banner.
 * `path` is the console page to open first (the console returns there after sign-in).
 */
export async function signIn(page: Page, baseUrl: string, email: string, path = '/'): Promise<void> {
  await page.goto(`${baseUrl}/console${path}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/dev-issuer\/authorize/);
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Presses `key` on `target` (Playwright focuses it first, as a keyboard user's Tab would) until `shown` appears.
 * Chromium's out-of-process PDF viewer can take the focus as it finishes loading, and on a loaded machine that can
 * fall between the focus and the key: the key is then lost. So the key is pressed again while `target` is still
 * there and enabled; a press that was delivered disables or removes it (the console's buttons say "…ing" while
 * their request runs), so it is never repeated. A timeout names the page's problems and its alerts.
 */
export async function pressUntilShown(
  target: Locator,
  key: string,
  shown: Locator,
  problems: readonly string[],
  ms = 30_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const pressable =
      (await target.count()) === 1 && (await target.isEnabled({ timeout: 1_000 }).catch(() => false));
    if (pressable) await target.press(key, { timeout: 5_000 }).catch(() => undefined);
    try {
      await shown.waitFor({ timeout: Math.max(1, Math.min(5_000, deadline - Date.now())) });
      return;
    } catch (error) {
      if (Date.now() < deadline) continue;
      const alerts = await shown.page().getByRole('alert').allInnerTexts();
      throw new Error(
        `${(error as Error).message}\nproblems: ${JSON.stringify(problems)}\nalerts: ${JSON.stringify(alerts)}`,
        { cause: error },
      );
    }
  }
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

const AXE_SOURCE = () => readFileSync(join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core (WCAG 2.x A and AA rules) on the page as it is now and returns the serious and critical
 * violations: `expect(await seriousAxeViolations(page)).toEqual([])`. axe is evaluated through the DevTools
 * protocol rather than page.addScriptTag: the console's CSP (script-src 'self') rightly refuses an inline
 * script tag, and the test must not weaken it (no bypassCSP).
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate('typeof window.axe');
  if (loaded !== 'object') await page.evaluate(AXE_SOURCE());
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(' ')),
    })))`)) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
