/**
 * The console's administration and ledger pages end to end in headless Chromium (issue 16, parts 5, 6 and 7): an
 * administrator registers a webhook (its secret shown once), sees a delivery arrive in the log and redelivers
 * it; creates an API key (shown once); invites a user and changes the role; the ledger explorer filters
 * records, opens one, verifies the chain and lists certificates; axe-core finds no serious or critical
 * violation on any of these pages, on a desktop and at 390 px.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { ensureConsoleBuilt, newContext, signIn, watchProblems } from '../support/console.js';
import { launchBrowser } from '../support/browser.js';
import {
  expectAccessible,
  nav,
  until,
  untilShown,
  watchProblemsBut404OfCertificate,
} from '../support/console-pages.js';
import { api, createFirm, stack, type TestFirm } from './helpers.js';

/** A webhook receiver on the loopback address (the embedded stack accepts http there): answers 204, keeps bodies. */
class Receiver {
  readonly bodies: { event: string; body: Record<string, unknown> }[] = [];
  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.bodies.push({
        event: String(request.headers['x-service-event']),
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      response.writeHead(204).end();
    });
  });

  async start(): Promise<string> {
    await new Promise<void>((listening) => this.server.listen(0, '127.0.0.1', listening));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/ledger`;
  }

  async until(count: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.bodies.length < count) {
      if (Date.now() > deadline)
        throw new Error(`The receiver got ${this.bodies.length} of ${count} deliveries`);
      await new Promise((wait) => setTimeout(wait, 200));
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((closed) => this.server.close(closed));
  }
}

let browser: Browser;
let firm: TestFirm;
const receiver = new Receiver();

beforeAll(async () => {
  ensureConsoleBuilt();
  firm = await createFirm();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await receiver.stop();
});

describe('webhooks in the console', () => {
  it('an administrator registers a webhook, sees its secret once, sees a delivery and redelivers it', async () => {
    const url = await receiver.start();
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await signIn(page, stack.baseUrl, firm.admin.email, '/admin/webhooks');
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await expectAccessible(page);
      await page.getByLabel('Endpoint URL (https)').fill(url);
      await page.getByLabel('incident.logged').check();
      await page.getByRole('button', { name: 'Register webhook' }).click();
      const secret = page.locator('[data-secret]');
      await secret.waitFor();
      expect(await secret.innerText()).toMatch(/^whsec_/);
      await page.getByRole('link', { name: url }).waitFor();
      await expectAccessible(page);

      // A subscribed event: the worker delivers it to the receiver.
      const incident = await api('POST', '/v1/incidents', {
        key: firm.key,
        body: {
          title: 'Webhook probe',
          description: 'Delivered to the receiver',
          severity: 'LOW',
          category: 'OTHER',
        },
      });
      expect(incident.status).toBeLessThan(300);
      await receiver.until(1);
      expect(receiver.bodies[0]!.event).toBe('incident.logged');

      await page.getByRole('link', { name: url }).click();
      await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
      await untilShown(
        page,
        () => page.getByRole('button', { name: 'Refresh deliveries' }).click(),
        '[data-delivery-status="DELIVERED"]',
      );
      await page.getByRole('cell', { name: 'incident.logged' }).waitFor();
      await expectAccessible(page);

      await page.getByRole('button', { name: /^Redeliver/ }).click();
      await receiver.until(2);
      expect(receiver.bodies[1]!.body).toEqual(receiver.bodies[0]!.body);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('administration pages', () => {
  it('creates an API key shown once; invites a user and makes them a lead reviewer', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    try {
      await signIn(page, stack.baseUrl, firm.admin.email, '/admin/api-keys');
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.getByLabel('Key name').fill('Case management system');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = await page.locator('[data-secret]').innerText();
      expect(key).toMatch(/^gls_/);
      await page.getByRole('cell', { name: 'Case management system', exact: true }).waitFor();
      await expectAccessible(page);
      // The key works, and is not shown again once the page is left.
      expect((await api('GET', '/v1/firm/me', { key })).status).toBe(200);
      await nav(page, 'Users');
      await nav(page, 'API keys');
      await page.getByRole('cell', { name: 'Case management system', exact: true }).waitFor();
      expect(await page.locator('[data-secret]').count()).toBe(0);

      await nav(page, 'Users');
      await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
      await page.getByText('Invite a user').click();
      const email = `invited-${Date.now().toString(36)}@firm.test`;
      await page.getByLabel('Name').fill('Ivy Invited');
      await page.getByLabel('Email address').fill(email);
      await page.getByLabel('FCA individual reference (optional, e.g. ABC12345)').fill('IVY12345');
      await page.getByLabel('CFP').check();
      await page.getByRole('button', { name: 'Invite' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Invited ${email}.` })
        .waitFor();
      await page.getByLabel('Role of Ivy Invited').selectOption('LEAD_REVIEWER');
      await page.getByLabel('Ivy Invited is a vulnerability specialist').check();
      await expect(page.getByLabel('Ivy Invited is a vulnerability specialist').isChecked()).resolves.toBe(
        true,
      );
      await expectAccessible(page);
      // The change shows at once; the API has it once the request completes.
      const ivy = async () =>
        (await api('GET', '/v1/firm/me/users', { key: firm.key })).body.find((u: any) => u.email === email);
      await until(async () => (await ivy()).specialistVulnerability === true, 'the specialist flag stored');
      expect([(await ivy()).role, (await ivy()).qualifications]).toEqual(['LEAD_REVIEWER', ['CFP']]);
      await expect(page.getByLabel('Role of Ivy Invited').inputValue()).resolves.toBe('LEAD_REVIEWER');
    } finally {
      await context.close();
    }
  });

  it.each([false, true])('every administration page is accessible (390 px: %s)', async (phone) => {
    const context = await newContext(browser, { phone });
    const page = await context.newPage();
    const problems = watchProblems(page);
    try {
      await signIn(page, stack.baseUrl, firm.admin.email, '/admin/users');
      for (const [link, heading, ready] of [
        ['Users', 'Users', 'table'],
        ['Document types', 'Document types', '.cards'],
        ['API keys', 'API keys', 'table'],
        ['Webhooks', 'Webhooks', 'form'],
        ['Settings', 'Firm settings', 'form'],
      ] as const) {
        // Tokens live in memory: a full page load would sign out, so move through the console's navigation.
        await nav(page, link);
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await page.locator(ready).first().waitFor();
        await expectAccessible(page);
        const overflow = (await page.evaluate(
          'document.documentElement.scrollWidth - window.innerWidth',
        )) as number;
        expect(overflow).toBeLessThanOrEqual(0);
      }
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the Ledger explorer', () => {
  it('pages through the records (25 a page), forward and back', async () => {
    const busy = await createFirm();
    for (let i = 0; i < 27; i++) {
      const logged = await api('POST', '/v1/incidents', {
        key: busy.key,
        body: { title: `Paging ${i}`, description: 'Paging', severity: 'LOW', category: 'OTHER' },
      });
      expect(logged.status).toBeLessThan(300);
    }
    const context = await newContext(browser);
    const page = await context.newPage();
    try {
      await signIn(page, stack.baseUrl, busy.admin.email, '/ledger');
      const rows = page.getByRole('table', { name: 'Ledger records' }).locator('tbody tr');
      await page.getByRole('table', { name: 'Ledger records' }).waitFor();
      expect(await rows.count()).toBe(25);
      const newest = await rows.first().locator('td').first().innerText();
      await page.getByRole('button', { name: 'Next page' }).click();
      await until(async () => (await rows.count()) > 0 && (await rows.count()) < 25, 'the second page');
      const second = await rows.locator('td:first-child').allInnerTexts();
      expect(second).not.toContain(newest);
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Previous page' }).click();
      await until(async () => (await rows.count()) === 25, 'the first page again');
      expect(await rows.first().locator('td').first().innerText()).toBe(newest);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  });

  it('filters records, opens one, verifies the chain and lists certificates, on a desktop and at 390 px', async () => {
    for (const phone of [false, true]) {
      const context = await newContext(browser, { phone });
      const page = await context.newPage();
      const problems = watchProblemsBut404OfCertificate(page);
      try {
        await signIn(page, stack.baseUrl, firm.admin.email, '/ledger');
        await page.getByRole('heading', { level: 1, name: 'Ledger' }).waitFor();
        await page.getByRole('table', { name: 'Ledger records' }).waitFor();
        await expectAccessible(page);

        await page.getByLabel('Event type').selectOption('INCIDENT_LOGGED');
        await page.getByRole('button', { name: 'Apply filters' }).click();
        await until(async () => {
          const events = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
          return events.length > 0 && events.every((e) => e === 'Incident logged');
        }, 'only INCIDENT_LOGGED records listed');

        await page.getByRole('button', { name: 'Verify the chain' }).click();
        await page.getByText('The chain is intact.').waitFor({ timeout: 60_000 });
        await expectAccessible(page);

        await page.locator('tbody a').first().click();
        await page.getByRole('heading', { level: 1, name: /^Ledger record #\d+$/ }).waitFor();
        await page.getByText('Incident logged', { exact: true }).waitFor();
        await page.getByRole('heading', { name: 'Certificate' }).waitFor();
        await page.locator('pre.json').waitFor();
        await expectAccessible(page);

        await page.getByRole('link', { name: 'Back to the ledger' }).click();
        await page.getByRole('link', { name: 'Certificates' }).first().click();
        await page.getByRole('heading', { level: 1, name: 'Certificates' }).waitFor();
        await page.locator('main p, main table').first().waitFor();
        await expectAccessible(page);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });
});
