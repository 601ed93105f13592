/**
 * Screenshots of the web console's pages for docs/console.md (issue 16, part 7), taken in headless Chromium
 * against a RUNNING local stack (`npm start`; this script never starts one):
 *
 *   npx tsx scripts/console-screenshots.ts            # DATA_DIR=.data, the stack's local-stack.json
 *   DATA_DIR=/tmp/stack npx tsx scripts/console-screenshots.ts
 *
 * It onboards a demo firm (ledgerctl firm create), seeds six months of completed reviews into the reporting
 * aggregates (as the reviewer flow and the reporting worker leave them), logs incidents, drafts and approves
 * impact assessments, registers a webhook to a receiver it runs for the duration, and then signs in as the
 * firm's administrator and photographs each page, on a desktop and a few at 390 px, into
 * docs/console-screenshots/. Not part of the test suite: the pages' behaviour is proven by
 * test/integration/console-*.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Page } from 'playwright-core';
import { createLedgerClient } from '../clients/typescript/index.js';
import { newId } from '../shared/ids.js';
import { createLocalDeps, localPaths, type LocalStackInfo } from '../shared/runtime/local-deps.js';
import { seedCompletedJobs } from '../shared/services/reporting.js';
import type { ReviewJobItem } from '../shared/store/review-job-store.js';
import { ensureConsoleBuilt, signIn } from '../test/support/console.js';
import { launchBrowser } from '../test/support/browser.js';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'docs/console-screenshots');
const dataDir = resolve(process.env.DATA_DIR ?? join(ROOT, '.data'));
const DAY = 86_400_000;
// The local issuer signs in by e-mail alone, so each run's demo users get addresses no other firm has.
const RUN = Date.now().toString(36).slice(-4);

function ledgerctl(args: string[]): Promise<unknown> {
  const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), ['bin/ledgerctl.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((done, fail) =>
    child.once('exit', (code) =>
      code === 0
        ? done(JSON.parse(out.trim().split('\n').pop()!))
        : fail(new Error(`ledgerctl ${args[0]}: ${code}`)),
    ),
  );
}

function must<T>(answer: { data?: T; error?: unknown }, what: string): T {
  if (answer.error !== undefined || answer.data === undefined) {
    throw new Error(`${what}: ${JSON.stringify(answer.error)}`);
  }
  return answer.data;
}

/** A completed (or open) review job as the reviewer flow leaves it, for the reporting aggregates. */
function job(
  firmId: string,
  daysAgo: number,
  outcome: ReviewJobItem['outcome'],
  extra: Partial<ReviewJobItem>,
) {
  const completedAt = new Date(Date.now() - daysAgo * DAY).toISOString();
  const submittedAt = new Date(
    Date.parse(completedAt) - (daysAgo % 9 === 0 ? 60 : 5) * 3_600_000,
  ).toISOString();
  const status =
    outcome === 'REJECTED' ? 'REJECTED' : outcome === 'APPROVED_WITH_MODIFICATIONS' ? 'MODIFIED' : 'APPROVED';
  return {
    id: newId('job'),
    firmId,
    documentReference: `SR-${Math.floor(daysAgo * 37) % 9000}`,
    documentType: 'SUITABILITY_REPORT',
    documentUrl: 'immutable://documents/demo',
    documentHash: 'a'.repeat(64),
    clientReference: 'CLI-DEMO',
    factFindSummary: {},
    status,
    priority: 'STANDARD',
    outcome,
    outcomeReason: outcome === 'REJECTED' ? 'Unsuitable for the client' : null,
    modifications: outcome === 'APPROVED_WITH_MODIFICATIONS' ? 'Reworded the risk warning' : null,
    assignedReviewerId: null,
    assignedAt: null,
    completedAt,
    submittedAt,
    slaDeadline: new Date(Date.parse(submittedAt) + 48 * 3_600_000).toISOString(),
    aiContext: null,
    vulnerabilityFlags: [],
    requiresSeniorSignOff: false,
    clientSegments: {},
    ledgerRecordId: null,
    certificateId: null,
    annotationCount: 0,
    slaBreachedAt: null,
    ...extra,
  } as ReviewJobItem;
}

/** Six months of outcomes across age bands from one model whose rejection rate rose in the last 30 days. */
function demoJobs(firmId: string): ReviewJobItem[] {
  const jobs: ReviewJobItem[] = [];
  const bands = ['18-34', '35-54', '55-64', '65+'];
  for (let i = 0; i < 160; i++) {
    const daysAgo = 2 + ((i * 7) % 175);
    const band = bands[i % bands.length]!;
    const recent = daysAgo <= 30;
    const rejectEvery = band === '65+' ? 3 : recent ? 5 : 9;
    const outcome =
      i % rejectEvery === 0 ? 'REJECTED' : i % 4 === 1 ? 'APPROVED_WITH_MODIFICATIONS' : 'APPROVED';
    jobs.push(
      job(firmId, daysAgo, outcome, {
        aiContext: { model: { provider: 'acme-llm', version: '2.1' } },
        clientSegments: { ageBand: band },
        annotationCount: i % 3,
      }),
    );
  }
  return jobs;
}

/** A one-page suitability report, so the reviewer's job page has a document to show. */
async function demoPdf(): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const page = pdf.addPage([595, 842]);
  const lines = [
    'Suitability report',
    'Client: CLI-DEMO (age 58)',
    'Objective: a sustainable retirement income from age 65.',
    'Recommendation: consolidate two workplace pensions into a flexi-access drawdown plan,',
    'balanced risk profile (4 of 7), with annual reviews.',
  ];
  lines.forEach((line, i) => page.drawText(line, { x: 56, y: 770 - i * 24, size: i === 0 ? 20 : 12, font }));
  return pdf.save();
}

async function main() {
  const info = JSON.parse(readFileSync(localPaths(dataDir).stackFile, 'utf8')) as LocalStackInfo;
  const baseUrl = info.baseUrl;
  ensureConsoleBuilt();
  mkdirSync(OUT, { recursive: true });

  const created = (await ledgerctl([
    'firm',
    'create',
    '--name',
    'Harbour Wealth Partners',
    '--frn',
    '654321',
    '--plan',
    'BOTH',
    '--admin-name',
    'Alex Admin',
    '--admin-email',
    `alex.admin.${RUN}@harbour.example`,
  ])) as { firm: { id: string }; admin: { email: string }; apiKey: string };
  const firmId = created.firm.id;
  const adminEmail = created.admin.email;
  const key = createLedgerClient({ baseUrl, apiKey: created.apiKey });
  const { token } = (await ledgerctl(['token', '--firm', firmId, '--email', adminEmail])) as {
    token: string;
  };
  const admin = createLedgerClient({ baseUrl, token });

  await seedCompletedJobs(
    createLocalDeps({ dataDir, dynamoEndpoint: info.dynamoEndpoint, baseUrl }),
    firmId,
    demoJobs(firmId),
  );

  must(
    await admin.POST('/v1/firm/me/users', {
      body: {
        name: 'Sam Senior',
        email: `sam.senior.${RUN}@harbour.example`,
        fcaRef: 'SAM12345',
        role: 'LEAD_REVIEWER',
      },
    }),
    'invite a senior',
  );
  must(
    await admin.POST('/v1/firm/me/users', {
      body: {
        name: 'Riley Reviewer',
        email: `riley.reviewer.${RUN}@harbour.example`,
        fcaRef: 'RIL12345',
        qualifications: ['DIP_PFS'],
        specialistVulnerability: true,
      },
    }),
    'invite a reviewer',
  );
  const incidents = [
    { title: 'Model drift on acme-llm 2.1', severity: 'HIGH', category: 'AI_MODEL' },
    { title: 'Late reviews during the March peak', severity: 'MEDIUM', category: 'OPERATIONAL' },
    { title: 'Vulnerable client flag missed', severity: 'CRITICAL', category: 'VULNERABLE_CUSTOMER' },
  ] as const;
  const logged = [];
  for (const i of incidents) {
    logged.push(
      must(
        await key.POST('/v1/incidents', { body: { ...i, description: `${i.title}: under review.` } }),
        'incident',
      ),
    );
  }
  must(
    await key.POST('/v1/incidents/{id}/remediations', {
      params: { path: { id: logged[0]!.id } },
      body: { description: 'Pin acme-llm to 2.0 until re-assessed', ownerName: 'Model risk' },
    }),
    'remediation',
  );
  must(
    await key.POST('/v1/incidents/{id}', {
      params: { path: { id: logged[1]!.id } },
      body: { status: 'RESOLVED' },
    }),
    'resolve',
  );

  const assessment = must(
    await key.POST('/v1/impact-assessments', {
      body: {
        useCase: 'Suitability report drafting',
        description:
          'acme-llm drafts suitability reports; an adviser edits and a reviewer approves each one.',
        modelProvider: 'acme-llm',
        modelVersion: '2.1',
        outcomes: {
          productsAndServices: { response: 'Drafts only products on the panel.', riskRating: 'LOW' },
          consumerUnderstanding: { response: 'Plain-English check on every draft.', riskRating: 'MEDIUM' },
        },
      },
    }),
    'assessment',
  );
  const path = { params: { path: { id: assessment.id } } };
  must(
    await key.POST('/v1/impact-assessments/{id}', { ...path, body: { status: 'PENDING_SIGNOFF' } }),
    'submit',
  );
  must(await admin.POST('/v1/impact-assessments/{id}', { ...path, body: { status: 'APPROVED' } }), 'approve');
  const pending = must(
    await key.POST('/v1/impact-assessments', {
      body: { useCase: 'Fact-find summarisation', description: 'Summarises fact-finds for the adviser.' },
    }),
    'second assessment',
  );
  must(
    await key.POST('/v1/impact-assessments/{id}', {
      params: { path: { id: pending.id } },
      body: { status: 'PENDING_SIGNOFF' },
    }),
    'submit the second',
  );
  for (const type of ['CONSUMER_DUTY_BOARD', 'BIAS'] as const) {
    must(
      await key.POST('/v1/reports', { body: { type, periodFrom: '2026-07-01', periodTo: '2026-09-30' } }),
      'report',
    );
  }

  // A job for the reviewer pages: Riley signs in once (linking the account), becomes available, and a suitability
  // report is uploaded and submitted; routing gives it to an available reviewer.
  const rileyEmail = `riley.reviewer.${RUN}@harbour.example`;
  const riley = createLedgerClient({
    baseUrl,
    token: ((await ledgerctl(['token', '--firm', firmId, '--email', rileyEmail])) as { token: string }).token,
  });
  must(await riley.GET('/v1/review/queue'), 'first request of the reviewer');
  for (let i = 0; i < 100; i++) {
    const users = must(await key.GET('/v1/firm/me/users'), 'users');
    if (users.find((u) => u.email === rileyEmail)?.activatedAt) break;
    await new Promise((wait) => setTimeout(wait, 200));
  }
  must(await riley.POST('/v1/review/availability', { body: { isAvailable: true } }), 'availability');
  const upload = must(
    await key.POST('/v1/review/uploads', { body: { filename: 'suitability-report.pdf' } }),
    'upload',
  );
  const put = await fetch(upload.uploadUrl, {
    method: 'PUT',
    body: await demoPdf(),
    headers: upload.uploadHeaders,
  });
  if (!put.ok) throw new Error(`upload PUT: ${put.status}`);
  const reviewJob = must(
    await key.POST('/v1/review/jobs', {
      body: {
        documentKey: upload.documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLI-DEMO',
        documentReference: 'SR-2026-0042',
        factFindSummary: { age: 58, objective: 'Retirement income', attitudeToRisk: 'Balanced' },
        aiContext: { confidence: 0.91, inputs: ['fact find', 'pension statements'] },
        clientSegments: { ageBand: '55-64' },
      },
    }),
    'submit a job',
  );
  const users = must(await key.GET('/v1/firm/me/users'), 'users');
  const jobReviewer = users.find((u) => u.id === reviewJob.assignedReviewerId)?.email ?? rileyEmail;

  const receiver = createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((listening) => receiver.listen(0, '127.0.0.1', listening));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/ledger`;
  const hook = must(
    await admin.POST('/v1/firm/me/webhooks', {
      body: { url: hookUrl, events: ['incident.logged', 'incident.resolved'] },
    }),
    'webhook',
  );
  must(
    await key.POST('/v1/incidents', {
      body: { title: 'Webhook smoke test', description: 'Delivered', severity: 'LOW', category: 'OTHER' },
    }),
    'incident for the webhook',
  );
  await new Promise((wait) => setTimeout(wait, 3000));

  const browser = await launchBrowser();
  try {
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(desktop, baseUrl, adminEmail, '/');
    // In-app navigation: tokens live in memory, so a full page load would sign out.
    const go = async (page: Page, to: string, heading: string | RegExp) => {
      await page.evaluate(
        `window.history.pushState({}, '', '/console${to}'); dispatchEvent(new PopStateEvent('popstate'))`,
      );
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(600); // chart animations
    };
    const shot = (page: Page, name: string) =>
      page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });

    const pages: [string, string | RegExp, string][] = [
      ['/governance/dashboard', 'Governance', 'governance-dashboard'],
      ['/governance/incidents', 'Incidents', 'incidents'],
      [`/governance/incidents/${logged[0]!.id}`, /^Incident:/, 'incident-detail'],
      ['/governance/assessments', 'Impact assessments', 'impact-assessments'],
      [`/governance/assessments/${pending.id}`, /^Impact assessment:/, 'impact-assessment-pending'],
      [`/governance/assessments/${assessment.id}`, /^Impact assessment:/, 'impact-assessment-approved'],
      ['/governance/reports', 'Reports log', 'reports-log'],
      ['/admin/users', 'Users', 'admin-users'],
      ['/admin/document-types', 'Document types', 'admin-document-types'],
      ['/admin/api-keys', 'API keys', 'admin-api-keys'],
      ['/admin/webhooks', 'Webhooks', 'admin-webhooks'],
      [`/admin/webhooks/${hook.id}`, 'Webhook deliveries', 'admin-webhook-deliveries'],
      ['/admin/settings', 'Firm settings', 'admin-settings'],
      ['/ledger', 'Ledger', 'ledger'],
      ['/ledger/certificates', 'Certificates', 'ledger-certificates'],
    ];
    for (const [to, heading, name] of pages) {
      await go(desktop, to, heading);
      await shot(desktop, name);
      console.log(`docs/console-screenshots/${name}.png`);
    }
    await go(desktop, '/ledger', 'Ledger');
    await desktop.getByRole('button', { name: 'Verify the chain' }).click();
    await desktop.getByTestId('verification-result').waitFor({ timeout: 120_000 });
    await shot(desktop, 'ledger-verified');
    await desktop.locator('tbody a').first().click();
    await desktop.getByRole('heading', { level: 1, name: /^Ledger record #/ }).waitFor();
    await desktop.waitForLoadState('networkidle');
    await shot(desktop, 'ledger-record');

    const phone = await browser.newPage({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    await signIn(phone, baseUrl, adminEmail, '/');
    for (const [to, heading, name] of [
      ['/governance/dashboard', 'Governance', 'phone-governance-dashboard'],
      ['/governance/incidents', 'Incidents', 'phone-incidents'],
      ['/ledger', 'Ledger', 'phone-ledger'],
    ] as const) {
      await go(phone, to, heading);
      await shot(phone, name);
      console.log(`docs/console-screenshots/${name}.png`);
    }

    // The reviewer pages (console-platform): the queue and the job, as the reviewer the job was routed to.
    const reviewer = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(reviewer, baseUrl, jobReviewer, '/');
    for (const [to, heading, name] of [
      ['/review', 'Review queue', 'review-queue'],
      [`/review/jobs/${reviewJob.id}`, /./, 'review-job'],
    ] as const) {
      await go(reviewer, to, heading);
      await reviewer.waitForTimeout(1500); // the document frame
      await shot(reviewer, name);
      console.log(`docs/console-screenshots/${name}.png`);
    }
  } finally {
    await browser.close();
    receiver.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
