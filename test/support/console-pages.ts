/**
 * Browser helpers of the console's compliance, administration and ledger tests (test/integration/console-*.test.ts),
 * on top of test/support/console.ts.
 */
import type { Page } from 'playwright-core';
import { seriousAxeViolations } from './console.js';

export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
}

/**
 * watchProblems, less the one expected 404: a record without a certificate answers GET .../certificate with 404
 * (an answer the page shows as "No certificate for this record yet"), which Chromium logs as a failed resource.
 */
export function watchProblemsBut404OfCertificate(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    const expected =
      /\/v1\/ledger\/records\/[^/]+\/certificate$/.test(message.location().url) &&
      message.text().includes('404');
    if (message.type() === 'error' && !expected) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return problems;
}

/** Follows a link of the console's main navigation (a full page load would end the in-memory session). */
export async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

/** Polls a condition on the page (waitForFunction would eval a string, which the console's CSP refuses). */
export async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Never happened: ${what}`);
    await new Promise((wait) => setTimeout(wait, 100));
  }
}

/** Clicks a reload control until `done` shows (a worker's progress is visible only by looking again). */
export async function untilShown(page: Page, refresh: () => Promise<void>, done: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await page.locator(done).count()) === 0) {
    if (Date.now() > deadline) throw new Error(`Never shown: ${done}`);
    await page.waitForTimeout(500);
    await refresh();
  }
}

/** Presses Tab until the focused element's text is `text` (keyboard-only use); fails after 100 presses. */
export async function tabTo(page: Page, text: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    await page.keyboard.press('Tab');
    const focused = (await page.evaluate('document.activeElement && document.activeElement.textContent')) as
      string | null;
    if (focused?.trim() === text) return;
  }
  throw new Error(`Tab never reached "${text}"`);
}
