/**
 * The console's compliance pages end to end in headless Chromium (issue 16, parts 4, 6 and 7): the Governance
 * dashboard draws its charts from seeded review outcomes, incidents and model drift; a senior drafts an impact
 * assessment, submits it and approves it; incidents are logged, moved and remediated; axe-core finds no serious
 * or critical violation on any of these pages, on a desktop and at 390 px.
 */
import type { Browser } from 'playwright-core';
import { ensureConsoleBuilt, newContext, signIn, watchProblems } from '../support/console.js';
import { launchBrowser } from '../support/browser.js';
import {
  expectAccessible,
  tabTo,
  until,
  watchProblemsBut404OfCertificate,
} from '../support/console-pages.js';
import { many, seedJobs } from './governance-seed.js';
import { api, createFirm, seedUser, stack, type TestFirm } from './helpers.js';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

let browser: Browser;
let firm: TestFirm;
let seniorEmail: string;

beforeAll(async () => {
  ensureConsoleBuilt();
  firm = await createFirm();
  seniorEmail = `senior-${Date.now().toString(36)}@firm.test`;
  await seedUser(firm.firmId, 'LEAD_REVIEWER', seniorEmail);
  const acme = { provider: 'acme', version: '1' };
  await seedJobs(firm.firmId, [
    // Baseline (31-120 days ago) 5 reviews, 1 rejected; current (last 30 days) 5, 4 rejected: a drift signal.
    ...many(5, 1, { model: acme, completedAt: ago(60), clientSegments: { ageBand: 'over-65' } }),
    ...many(5, 4, { model: acme, completedAt: ago(3), clientSegments: { ageBand: 'over-65' } }),
    ...many(12, 1, { completedAt: ago(2), clientSegments: { ageBand: '18-40' } }, 2),
  ]);
  for (const severity of ['CRITICAL', 'LOW'] as const) {
    const logged = await api('POST', '/v1/incidents', {
      key: firm.key,
      body: {
        title: `Seeded ${severity}`,
        description: 'Seeded for the dashboard',
        severity,
        category: 'AI_MODEL',
      },
    });
    expect(logged.status).toBeLessThan(300);
  }
  browser = await launchBrowser();
});

afterAll(() => browser?.close());

const CHARTS = ['cd-outcomes', 'cd-sla', 'bias', 'drift', 'incidents'];

describe('the Governance dashboard', () => {
  it('draws each chart from the seeded data, with its numbers in words and as a table', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await signIn(page, stack.baseUrl, seniorEmail, '/governance/dashboard');
      await page.getByRole('heading', { level: 1, name: 'Governance' }).waitFor();
      for (const chart of CHARTS) {
        await page.locator(`[data-chart="${chart}"] svg.recharts-surface`).first().waitFor();
      }
      // 22 completed reviews: 5+5+12; rejected 1+4+1 = 6; 2 approved with modifications.
      const outcomes = page.locator('[data-chart="cd-outcomes"]');
      await expect(outcomes.locator('.chart-summary').innerText()).resolves.toContain(
        '22 reviews: 14 approved, 2 approved with modifications, 6 rejected',
      );
      expect(await outcomes.locator('.recharts-bar-rectangle').count()).toBeGreaterThan(0);
      // The bias chart: one bar per eligible segment, the whiskers of its interval, and the alternative table.
      const bias = page.locator('[data-chart="bias"]');
      expect(await bias.locator('.recharts-errorBar').count()).toBeGreaterThan(0);
      // The text alternative opens from the keyboard.
      await tabTo(page, 'Rejection rate per client segment: the data as a table');
      await page.keyboard.press('Enter');
      await expect(bias.getByRole('cell', { name: 'ageBand: over-65' }).count()).resolves.toBe(1);
      // The drift signal of acme 1's rejection rate (20 % → 80 %).
      await expect(page.locator('[data-chart="drift"] .chart-summary').innerText()).resolves.toMatch(
        /acme 1: Rejection rate \((alert|warning)\)/,
      );
      await expect(page.locator('[data-chart="incidents"] .chart-summary').innerText()).resolves.toBe(
        '2 incidents: 2 open, 0 resolved, 1 critical.',
      );
      await expectAccessible(page);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits a 390 px screen and stays accessible there', async () => {
    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    try {
      await signIn(page, stack.baseUrl, seniorEmail, '/governance/dashboard');
      for (const chart of CHARTS) {
        await page.locator(`[data-chart="${chart}"] svg.recharts-surface`).first().waitFor();
      }
      const overflow = (await page.evaluate(
        'document.documentElement.scrollWidth - window.innerWidth',
      )) as number;
      expect(overflow).toBeLessThanOrEqual(0);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });

  it('says in words when the dashboard cannot load, instead of a blank page', async () => {
    const context = await newContext(browser);
    // The dashboard's chunk fails to arrive (a network failure, or a deployment that replaced it).
    await context.route(/GovernanceDashboard-[\w-]+\.js$/, (route) => route.abort());
    const page = await context.newPage();
    try {
      await signIn(page, stack.baseUrl, seniorEmail, '/governance/dashboard');
      await page.getByRole('heading', { level: 1, name: 'This page could not be shown' }).waitFor();
      expect(await page.getByRole('alert').innerText()).toMatch(
        /could not be reached.*the other pages still work/,
      );
      // The rest of the console still works.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).click();
      await page.getByRole('heading', { level: 1, name: 'Incidents' }).waitFor();
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });
});

describe('impact assessments in the console', () => {
  it('a senior drafts one, submits it and approves it; the approval lands on the ledger', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = watchProblemsBut404OfCertificate(page);
    try {
      await signIn(page, stack.baseUrl, seniorEmail, '/governance/assessments');
      await page.getByRole('heading', { level: 1, name: 'Impact assessments' }).waitFor();
      await expectAccessible(page);
      await page.getByText('Draft an impact assessment').click();
      await page.getByLabel('Use case').fill('Suitability report drafting');
      await page.getByLabel('Description').fill('An LLM drafts suitability reports that advisers edit.');
      await page.getByLabel('Model provider (optional)').fill('acme');
      await page.getByLabel('Model version (optional)').fill('2');
      await page.getByRole('button', { name: 'Create draft' }).click();

      await page
        .getByRole('heading', { level: 1, name: 'Impact assessment: Suitability report drafting' })
        .waitFor();
      const status = page.getByTestId('assessment-status');
      await expect(status.innerText()).resolves.toBe('Draft');
      await page.getByLabel('Response').first().fill('Products fit the target market.');
      await page.getByLabel('Risk rating').first().selectOption('MEDIUM');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      await expectAccessible(page);

      await page.getByRole('button', { name: 'Submit for sign-off' }).click();
      await page.getByText('Pending signoff', { exact: true }).waitFor();
      await tabTo(page, 'Approve'); // by keyboard alone
      await page.keyboard.press('Enter');
      await page.getByText('Approved', { exact: true }).waitFor();
      await page.getByRole('link', { name: 'Ledger record and approval certificate' }).waitFor();
      await expectAccessible(page);

      const id = page.url().split('/').pop()!;
      const stored = await api('GET', `/v1/impact-assessments/${id}`, { key: firm.key });
      expect(stored.body.status).toBe('APPROVED');
      expect(stored.body.signedOffBy.email).toBe(seniorEmail);
      expect(stored.body.outcomes.productsAndServices).toEqual({
        response: 'Products fit the target market.',
        riskRating: 'MEDIUM',
      });

      // The approval record opens in the ledger explorer.
      await page.getByRole('link', { name: 'Ledger record and approval certificate' }).click();
      await page.getByRole('heading', { level: 1, name: /^Ledger record #\d+$/ }).waitFor();
      await page.getByText('Impact assessment approved', { exact: true }).waitFor();
      // The certificate is generated after the approval: look again until its download appears, then fetch it.
      const download = page.getByRole('link', { name: 'Download the certificate (PDF)' });
      await until(async () => {
        if ((await download.count()) > 0) return true;
        const again = page.getByRole('button', { name: 'Check again' });
        if ((await again.count()) > 0) await again.click();
        return false;
      }, 'the approval certificate');
      const pdf = await fetch((await download.getAttribute('href'))!);
      expect([pdf.status, pdf.headers.get('content-type')]).toEqual([200, 'application/pdf']);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      await expectAccessible(page);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows an API error in words: a transition that conflicts with a change made elsewhere', async () => {
    const created = await api('POST', '/v1/impact-assessments', {
      key: firm.key,
      body: { useCase: 'Already approved', description: 'Approved elsewhere' },
    });
    const id = created.body.id as string;
    const context = await newContext(browser);
    const page = await context.newPage();
    try {
      await signIn(page, stack.baseUrl, seniorEmail, `/governance/assessments/${id}`);
      await page.getByRole('button', { name: 'Submit for sign-off' }).waitFor();
      // Another hand submits and rejects it meanwhile: the page's submission (REJECTED to PENDING_SIGNOFF is no
      // move) conflicts, and the page says so in words.
      for (const status of ['PENDING_SIGNOFF', 'REJECTED']) {
        const moved = await api('POST', `/v1/impact-assessments/${id}`, { key: firm.key, body: { status } });
        expect(moved.status).toBe(200);
      }
      await page.getByRole('button', { name: 'Submit for sign-off' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/\w+.*\(request [\w-]+\)/);
    } finally {
      await context.close();
    }
  });
});

describe('incidents and the reports log in the console', () => {
  it('logs an incident, moves it, adds and completes a remediation, resolves it', async () => {
    const context = await newContext(browser, { phone: true });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await signIn(page, stack.baseUrl, seniorEmail, '/governance/incidents');
      await page.getByRole('heading', { level: 1, name: 'Incidents' }).waitFor();
      await page.getByRole('table', { name: 'Recent incidents' }).waitFor();
      await expectAccessible(page);
      await page.getByText('Log an incident').click();
      await page.getByLabel('Title').fill('Drift on acme 1');
      await page.getByLabel('Description').fill('Rejection rate rose from 20 % to 80 %.');
      await page.getByLabel('Severity').selectOption('HIGH');
      await page.getByLabel('Category').selectOption('AI_MODEL');
      await page.getByRole('button', { name: 'Log incident' }).click();
      await page.getByRole('status').getByRole('link', { name: 'Drift on acme 1' }).click();

      await page.getByRole('heading', { level: 1, name: 'Incident: Drift on acme 1' }).waitFor();
      const status = page.getByTestId('incident-status');
      await expect(status.innerText()).resolves.toBe('Open');
      await page.getByLabel('Move to').selectOption('INVESTIGATING');
      await page.getByRole('button', { name: 'Change status' }).click();
      await page.getByTestId('incident-status').getByText('Investigating').waitFor();

      await page.getByLabel('Description').fill('Roll back to acme 0.9');
      await page.getByLabel('Owner (optional)').fill('Model risk team');
      await page.getByRole('button', { name: 'Add remediation' }).click();
      const remediation = page.getByLabel('Status of remediation: Roll back to acme 0.9');
      await remediation.waitFor();
      await remediation.selectOption('COMPLETED');
      await page.getByRole('cell', { name: /UTC$/ }).waitFor();

      await page.getByLabel('Root cause').fill('Vendor changed the model without notice.');
      await page.getByRole('button', { name: 'Save root cause' }).click();
      await page.getByLabel('Move to').selectOption('RESOLVED');
      await page.getByRole('button', { name: 'Change status' }).click();
      await page.getByTestId('incident-status').getByText('Resolved').waitFor();
      await expectAccessible(page);

      const id = page.url().split('/').pop()!;
      const stored = await api('GET', `/v1/incidents/${id}`, { key: firm.key });
      expect([stored.body.status, stored.body.severity, stored.body.rootCause]).toEqual([
        'RESOLVED',
        'HIGH',
        'Vendor changed the model without notice.',
      ]);
      expect(stored.body.resolvedAt).not.toBeNull();
      expect(stored.body.remediations.map((r: any) => [r.description, r.status, r.ownerName])).toEqual([
        ['Roll back to acme 0.9', 'COMPLETED', 'Model risk team'],
      ]);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('records a report in the log and lists it, on a desktop and at 390 px', async () => {
    for (const phone of [false, true]) {
      const context = await newContext(browser, { phone });
      const page = await context.newPage();
      try {
        await signIn(page, stack.baseUrl, seniorEmail, '/governance/reports');
        await page.getByRole('heading', { level: 1, name: 'Reports log' }).waitFor();
        await page.getByText('Record a generated report').click();
        await page.getByLabel('Report type').selectOption('BIAS');
        await page.getByLabel('Period from').fill('2026-01-01');
        await page.getByLabel('Period to').fill('2026-03-31');
        await page.getByRole('button', { name: 'Record report' }).click();
        await page.getByRole('status').filter({ hasText: 'Recorded.' }).waitFor();
        await page.getByRole('cell', { name: '2026-01-01 to 2026-03-31' }).first().waitFor();
        await expectAccessible(page);
      } finally {
        await context.close();
      }
    }
  });
});
