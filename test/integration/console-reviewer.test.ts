import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ensureConsoleBuilt,
  newContext,
  PHONE,
  pressUntilShown,
  seriousAxeViolations,
  signIn,
  watchProblems,
} from '../support/console.js';
import { launchBrowser } from '../support/browser.js';
import { api, createFirm, linkedUser, seedUser, stack, tokenFor, type TestFirm } from './helpers.js';

/**
 * The web console end to end in headless Chromium (issue 16): a reviewer signs in through the local issuer's
 * page, opens the job routed to them, views the document, answers the checklist and approves; the outcome and
 * its certificate appear. axe-core finds no serious or critical violation on any page, on a desktop and at
 * 390 px, and the console runs without a console error (a CSP violation would be one).
 */
describe('the console: a reviewer decides a job in the browser', () => {
  let browser: Browser;
  let firm: TestFirm;
  let reviewer: { id: string; email: string };
  let job: { id: string; documentReference: string };
  let checklist: string[];
  const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(1_000)]);

  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launchBrowser();
    firm = await createFirm();
    const email = `reviewer-console-${Date.now().toString(36)}@firm.test`;
    const user = await seedUser(firm.firmId, 'REVIEWER', email);
    reviewer = { id: user.id, email };
    // The reviewer has signed in before (their first request links them), so routing gives them the job.
    const token = await tokenFor(firm.firmId, email);
    expect((await api('GET', '/v1/review/queue', { token })).status).toBe(200);
    await linkedUser(firm.firmId, user.id);
    const upload = await api('POST', '/v1/review/uploads', {
      key: firm.key,
      body: { filename: 'advice.pdf' },
    });
    await fetch(upload.body.uploadUrl, { method: 'PUT', body: bytes, headers: upload.body.uploadHeaders });
    const submitted = await api('POST', '/v1/review/jobs', {
      key: firm.key,
      body: {
        documentKey: upload.body.documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLI-CONSOLE',
        documentReference: `DOC-${randomBytes(3).toString('hex')}`,
        factFindSummary: { age: 58, objective: 'Retirement income' },
        aiContext: { confidence: 0.91, inputs: ['fact find'] },
        clientSegments: { ageBand: '55-64' },
      },
    });
    expect(submitted.status).toBe(201);
    expect(submitted.body.assignedReviewerId).toBe(user.id);
    job = submitted.body;
    const types = await api('GET', '/v1/firm/me/document-types', { key: firm.key });
    const list = Array.isArray(types.body) ? types.body : types.body.data;
    checklist = list.find((t: { slug: string }) => t.slug === 'SUITABILITY_REPORT').checklistItems;
    expect(checklist.length).toBeGreaterThan(0);
  });
  afterAll(() => browser?.close());

  async function expectAccessible(page: Page, where: string) {
    const violations = await seriousAxeViolations(page);
    expect({ where, violations }).toEqual({ where, violations: [] });
  }

  it('signs in, opens the job, views the document, answers the checklist, approves: outcome and certificate appear', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await page.goto(`${stack.baseUrl}/console/`);
      await page.getByRole('heading', { name: 'Governance Ledger console' }).waitFor();
      await expectAccessible(page, 'sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/dev-issuer\/authorize/);
      await expectAccessible(page, 'local authorization page');
      await page.getByLabel('Email').fill(reviewer.email);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/console\/?$/);
      // The PKCE verifier lived in sessionStorage for the redirect only; no token is stored anywhere.
      expect(await page.evaluate(() => [sessionStorage.length, localStorage.length])).toEqual([0, 0]);
      await expectAccessible(page, 'home');

      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Review queue' })
        .click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      const mine = page.getByRole('region', { name: 'Your review work' });
      await mine.getByRole('link', { name: job.documentReference }).waitFor();
      await expect(page.getByRole('switch', { name: 'Available for new work' }).isChecked()).resolves.toBe(
        true,
      );
      await expectAccessible(page, 'review queue');

      await mine.getByRole('link', { name: job.documentReference }).click();
      await page.getByRole('heading', { level: 1, name: `Review ${job.documentReference}` }).waitFor();
      const frame = page.getByTitle('The document, advice.pdf');
      await frame.waitFor();
      const documentUrl = (await frame.getAttribute('src'))!;
      // The page can read the very bytes that were submitted (the immutable copy).
      const served = await page.evaluate(async (url) => {
        const response = await fetch(url);
        return {
          status: response.status,
          type: response.headers.get('content-type'),
          size: (await response.arrayBuffer()).byteLength,
        };
      }, documentUrl);
      expect(served).toEqual({ status: 200, type: 'application/pdf', size: bytes.byteLength });
      await expect(page.getByText('Retirement income').isVisible()).resolves.toBe(true);
      await expect(page.getByText('55-64').isVisible()).resolves.toBe(true);
      await expectAccessible(page, 'job, assigned');

      // From here on by keyboard, as a keyboard-only user works: the console must allow it, and a mouse
      // click next to Chromium's out-of-process PDF viewer is not reliably delivered in headless mode.
      const decision = page.getByRole('region', { name: 'Decision' });
      await pressUntilShown(page.getByRole('button', { name: 'Start review' }), 'Enter', decision, problems);
      const send = decision.getByRole('button', { name: 'Send decision' });
      // Not sendable until every checklist item is answered.
      await decision.getByRole('radio', { name: 'Approve', exact: true }).press('Space');
      await expect(send.isDisabled()).resolves.toBe(true);
      for (const item of checklist) {
        await expect(send.isDisabled()).resolves.toBe(true);
        await decision.getByRole('group', { name: item }).getByRole('radio', { name: 'Yes' }).press('Space');
      }
      await expect(send.isEnabled()).resolves.toBe(true);
      // The rules of the other outcomes: rejecting needs a reason, approving with modifications needs them.
      await decision.getByRole('radio', { name: 'Reject' }).press('Space');
      await expect(send.isDisabled()).resolves.toBe(true);
      await decision.getByText('give the reason for rejecting').waitFor();
      await decision.getByRole('radio', { name: 'Approve with modifications' }).press('Space');
      await expect(send.isDisabled()).resolves.toBe(true);
      await expect(decision.getByRole('textbox', { name: 'Modifications' }).isVisible()).resolves.toBe(true);
      await expectAccessible(page, 'job, decision form');
      await decision.getByRole('radio', { name: 'Approve', exact: true }).press('Space');
      await expect(decision.getByRole('textbox', { name: 'Modifications' }).count()).resolves.toBe(0);
      await expect(send.isEnabled()).resolves.toBe(true);
      const outcome = page.getByRole('region', { name: 'Outcome' });
      await pressUntilShown(send, 'Enter', outcome, problems);
      await expect(outcome.getByText('Approved', { exact: true }).isVisible()).resolves.toBe(true);
      const certificate = outcome.getByRole('link', { name: 'Certificate (PDF)' });
      await certificate.waitFor({ timeout: 60_000 });
      const pdf = await page.evaluate(
        async (url) => {
          const response = await fetch(url);
          return { status: response.status, type: response.headers.get('content-type') };
        },
        (await certificate.getAttribute('href'))!,
      );
      expect(pdf).toEqual({ status: 200, type: 'application/pdf' });
      await expect(outcome.getByRole('link', { name: /^Verify certificate / }).isVisible()).resolves.toBe(
        true,
      );
      await expectAccessible(page, 'job, decided');

      const stored = await api('GET', `/v1/review/jobs/${job.id}`, { key: firm.key });
      expect(stored.body).toMatchObject({ status: 'APPROVED', outcome: 'APPROVED' });
      expect(stored.body.reviewActions.map((a: { action: string }) => a.action)).toEqual(
        expect.arrayContaining(['STARTED', 'COMPLETED']),
      );

      await page.getByRole('button', { name: 'Sign out' }).press('Enter');
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(new URL(page.url()).pathname).toMatch(/^\/console\/?$/);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('works at 390 px: every page fits the width and passes axe', async () => {
    const context: BrowserContext = await newContext(browser, { phone: true });
    const page = await context.newPage();
    const problems = watchProblems(page);
    const fits = () => page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
    try {
      await signIn(page, stack.baseUrl, reviewer.email, `/review/jobs/${job.id}`);
      // Sign-in returns to the deep link it started from.
      await page.getByRole('heading', { level: 1, name: `Review ${job.documentReference}` }).waitFor();
      await page.getByRole('region', { name: 'Outcome' }).waitFor();
      expect(await fits()).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(page, 'job at 390 px');
      await page.getByRole('link', { name: 'Back to the review queue' }).click();
      await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
      expect(await fits()).toBeLessThanOrEqual(PHONE.width);
      await expectAccessible(page, 'review queue at 390 px');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
