/**
 * The console at any address of the local stack, and every item of its plain-array lists (issue 33, parts 2
 * and 3), in headless Chromium: signed in at http://127.0.0.1:<port>, at http://localhost:<port> and at this
 * machine's host name (as another machine on the network would reach it: plain HTTP there is not a secure
 * context, so no WebCrypto), each time loading pages that call the API; 101 impact assessments, seeded through
 * the API, paged through the Link header's cursor to the last (oldest) one.
 */
import { hostname } from 'node:os';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';
import { ensureConsoleBuilt, newContext, signIn, watchProblems } from '../support/console.js';
import { api, createFirm, stack, type TestFirm } from './helpers.js';

const SEEDED = 101;
const useCase = (n: number) => `Seeded use case ${String(n).padStart(3, '0')}`;
const port = () => new URL(stack.baseUrl).port;
/** This machine's name, as a LAN name: Chromium resolves it to the loopback, where the stack listens. */
const machine = hostname().toLowerCase();

let browser: Browser;
let firm: TestFirm;

beforeAll(async () => {
  ensureConsoleBuilt();
  firm = await createFirm();
  // Newest first: 101 is on the first page, 001 the one item past the first 100.
  for (let n = 1; n <= SEEDED; n++) {
    const created = await api('POST', '/v1/impact-assessments', {
      key: firm.key,
      body: { useCase: useCase(n), description: 'Seeded for paging' },
    });
    expect(created.status).toBe(201);
  }
  browser = await launchBrowser([`--host-resolver-rules=MAP ${machine} 127.0.0.1`]);
});

afterAll(() => browser?.close());

/** The assessments table's body rows (the header row has no cells). */
const rows = (page: Page) => page.getByRole('table', { name: 'Impact assessments' }).locator('tbody tr');

async function signedInAt(origin: string, path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await newContext(browser)).newPage();
  const problems = watchProblems(page);
  await signIn(page, origin, firm.admin.email, path);
  // Signed in without leaving the page's origin: the issuer, the callback and the API are all its own.
  expect(new URL(page.url()).origin).toBe(origin);
  return { page, problems };
}

describe('the console at any address (issue 33)', () => {
  it('at 127.0.0.1: signs in, and pages the impact assessments through their Link header to the last one', async () => {
    const origin = `http://127.0.0.1:${port()}`;
    const { page, problems } = await signedInAt(origin, '/governance/assessments');
    try {
      await page.getByRole('link', { name: useCase(SEEDED) }).waitFor();
      expect(await rows(page).count()).toBe(100);
      expect(await page.getByRole('link', { name: useCase(1) }).count()).toBe(0);
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.getByRole('link', { name: useCase(1) }).waitFor();
      expect(await rows(page).count()).toBe(SEEDED - 100);
      await expect(page.getByRole('navigation', { name: 'Pages' }).innerText()).resolves.toContain('Page 2');
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByRole('link', { name: useCase(SEEDED) }).waitFor();
      expect(await rows(page).count()).toBe(100);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('at localhost: signs in, loads a page that calls the API, and signs out back to this console', async () => {
    const { page, problems } = await signedInAt(stack.baseUrl, '/governance/assessments');
    try {
      await page.getByRole('link', { name: useCase(SEEDED) }).waitFor();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(page.url()).toBe(`${stack.baseUrl}/console/`);
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it("at this machine's host name over plain HTTP (not a secure context): signs in and calls the API", async () => {
    const origin = `http://${machine}:${port()}`;
    const { page, problems } = await signedInAt(origin, '/ledger/certificates');
    try {
      // What a LAN address gives: no WebCrypto (the PKCE challenge is computed without it).
      expect(await page.evaluate('window.isSecureContext')).toBe(machine === 'localhost');
      await page.getByRole('heading', { level: 1, name: 'Certificates' }).waitFor();
      await page.getByText('No certificate issued yet.').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.context().close();
    }
  });
});
