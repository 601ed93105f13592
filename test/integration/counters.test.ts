/**
 * Issue 14, counters: every count and report endpoint answers from counters kept with the writes. Each test
 * drives the writes over HTTP (concurrently, with repeated deliveries), then checks the answers against the
 * items themselves (the O(history) computation the endpoints used before) and against a full recount.
 */
import { randomBytes } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { incidentStats } from '../../shared/domain/governance/incidents.js';
import { summariseModels } from '../../shared/domain/governance/models.js';
import { declaredModel } from '../../shared/domain/review/jobs.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';
import { backfillCounters } from '../../shared/services/counters-backfill.js';
import { recountFirmCounters } from '../../shared/services/firm-counters.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { reconcileBackup, reconcileDueFirms } from '../../shared/services/integrity/backup-reconcile.js';
import { listIncidentFacts } from '../../shared/store/incident-store.js';
import { keys } from '../../shared/store/keys.js';
import { pendingOutboxSequences } from '../../shared/store/ledger-presence.js';
import { getRecordBySequence } from '../../shared/store/ledger-store.js';
import type { StoredJob } from '../../shared/store/review-job-store.js';
import { ledgerctl } from '../support/local-stack.js';
import { jobItem } from './governance-seed.js';
import {
  api,
  createFirm,
  seedUser,
  stack,
  stackDeps,
  type TestFirm,
  tokenFor,
  uploadDocument,
} from './helpers.js';

const deps = stackDeps();

/** Waits (bounded) for background work of the stack; fails the test if it never happens. */
async function eventually(probe: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('Timed out waiting for the stack');
}

async function submitJob(firm: TestFirm, extra: Record<string, unknown>): Promise<string> {
  const documentKey = await uploadDocument({ key: firm.key }, new Uint8Array(randomBytes(600)), 'r.pdf');
  const response = await api('POST', '/v1/review/jobs', {
    key: firm.key,
    body: {
      documentKey,
      documentType: 'SUITABILITY_REPORT',
      clientReference: 'CLI-1',
      documentReference: `DOC-${randomBytes(4).toString('hex')}`,
      factFindSummary: { age: 60 },
      ...extra,
    },
  });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

/** The three job reports, as a client sees them. */
async function jobReports(firm: TestFirm) {
  const [stats, models, vulnerability] = await Promise.all([
    api('GET', '/v1/firm/me/stats', { key: firm.key }),
    api('GET', '/v1/models', { key: firm.key }),
    api('GET', '/v1/vulnerability', { key: firm.key }),
  ]);
  for (const response of [stats, models, vulnerability]) expect(response.status).toBe(200);
  return { stats: stats.body, models: models.body, vulnerability: vulnerability.body };
}

/** Every job item of the firm, read whole (the oracle the counters are checked against). */
async function listJobs(d: Deps, firmId: string): Promise<StoredJob[]> {
  const jobs: StoredJob[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await d.db.send(
      new QueryCommand({
        TableName: d.tables.main,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :job)',
        ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':job': 'JOB#' },
        ExclusiveStartKey: startKey,
      }),
    );
    jobs.push(...((page.Items ?? []) as StoredJob[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return jobs;
}

/** The models summary computed from every job item (what GET /v1/models did before issue 14). */
async function modelsFromItems(firmId: string) {
  const jobs = await listJobs(deps, firmId);
  return summariseModels(
    jobs.map((job) => ({
      status: job.status,
      outcome: job.outcome,
      submittedAt: job.submittedAt,
      annotationCount: job.annotationCount,
      model: declaredModel(job.aiContext),
    })),
  );
}

const OPEN = ['QUEUED', 'ASSIGNED', 'IN_REVIEW', 'ESCALATED'];

/** The vulnerability counts computed from every job item. */
async function vulnerabilityFromItems(firmId: string) {
  const jobs = await listJobs(deps, firmId);
  const flagged = jobs.filter((job) => job.vulnerabilityFlags.length > 0);
  return {
    totalFlaggedJobs: flagged.length,
    totalUnflaggedJobs: jobs.length - flagged.length,
    awaitingSeniorSignOff: jobs.filter((job) => OPEN.includes(job.status) && job.requiresSeniorSignOff)
      .length,
    health: {
      totalJobs: flagged.filter((job) => job.vulnerabilityFlags.includes('health')).length,
      openJobs: flagged.filter(
        (job) => job.vulnerabilityFlags.includes('health') && OPEN.includes(job.status),
      ).length,
    },
    recent: flagged
      .sort((a, b) => b.submittedAt.localeCompare(a.submittedAt) || b.id.localeCompare(a.id))
      .slice(0, 20)
      .map((job) => job.id),
  };
}

describe('job counters: stats, models and vulnerability through concurrent writes', () => {
  it('stay equal to the items and to a recount through concurrent submissions, cancels and completions', async () => {
    const firm = await createFirm('BOTH');
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const acme = { provider: 'acme', version: '1.0' };
    const other = { provider: 'other#co', version: 'v/2' };
    const shapes = [
      { aiContext: { model: acme } },
      { aiContext: { model: acme }, vulnerabilityFlags: ['health'] },
      { aiContext: { model: other }, vulnerabilityFlags: ['health', 'capability'] },
      { aiContext: { model: other }, requiresSeniorSignOff: true },
      {},
      { vulnerabilityFlags: ['life_event'] },
    ];
    // 18 concurrent submissions: the counter shards are shared between them.
    const ids = await Promise.all(
      Array.from({ length: 18 }, (_, i) => submitJob(firm, shapes[i % shapes.length]!)),
    );

    // Cancel six jobs, each twice at once: exactly one of each pair wins, the other is 409.
    const cancels = await Promise.all(
      ids
        .slice(0, 6)
        .flatMap((id) => [
          api('POST', `/v1/review/jobs/${id}/cancel`, { key: firm.key }),
          api('POST', `/v1/review/jobs/${id}/cancel`, { key: firm.key }),
        ]),
    );
    const statuses = cancels.map((c) => c.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(6);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);

    // A senior reviewer completes two jobs (one flagged, one with a model).
    const email = `lead-${randomBytes(3).toString('hex')}@firm.test`;
    await seedUser(firm.firmId, 'LEAD_REVIEWER', email);
    const token = await tokenFor(firm.firmId, email);
    const completed: string[] = [];
    for (let round = 0; round < 2; round++) {
      const queue = await api('GET', '/v1/review/queue', { token });
      const job = (queue.body.data as { id: string; status: string }[]).find((j) => j.status === 'ASSIGNED');
      expect(job).toBeDefined();
      expect((await api('POST', `/v1/review/jobs/${job!.id}/start`, { token })).status).toBe(200);
      const done = await api('POST', `/v1/review/jobs/${job!.id}/complete`, {
        token,
        body: round === 0 ? { outcome: 'REJECTED', outcomeReason: 'Unsuitable' } : { outcome: 'APPROVED' },
      });
      expect(done.status).toBe(200);
      completed.push(job!.id);
    }

    // Outcome records are certified in the background: wait for both, so the reads below see a settled firm.
    for (const id of completed)
      await eventually(
        async () => (await api('GET', `/v1/review/jobs/${id}`, { key: firm.key })).body.certificateId,
      );

    const live = await jobReports(firm);
    expect(live.stats).toMatchObject({ jobCount: 18, certificateCount: 2 });
    expect(live.models).toEqual(await modelsFromItems(firm.firmId));
    expect(live.models.map((m: { provider: string }) => m.provider)).toEqual(['acme', 'other#co']);
    const expected = await vulnerabilityFromItems(firm.firmId);
    expect(live.vulnerability).toMatchObject({
      totalFlaggedJobs: expected.totalFlaggedJobs,
      totalUnflaggedJobs: expected.totalUnflaggedJobs,
      awaitingSeniorSignOff: expected.awaitingSeniorSignOff,
    });
    expect(live.vulnerability.flagBreakdown.find((f: { flag: string }) => f.flag === 'health')).toMatchObject(
      expected.health,
    );
    expect(live.vulnerability.recentFlaggedJobs.map((j: { id: string }) => j.id)).toEqual(expected.recent);

    // A recount from the items changes nothing.
    await recountFirmCounters(deps, firm.firmId);
    expect(await jobReports(firm)).toEqual(live);
  });
});

describe('incident counters', () => {
  it('count every incident once through concurrent logging and racing resolutions', async () => {
    const firm = await createFirm();
    const base = { title: 'Model drift', description: 'Rejections rose' };
    const logged = await Promise.all(
      ['LOW', 'HIGH', 'CRITICAL', 'CRITICAL', 'MEDIUM'].map((severity, i) =>
        api('POST', '/v1/incidents', {
          key: firm.key,
          body: { ...base, severity, category: i % 2 ? 'AI_MODEL' : 'SECURITY' },
        }),
      ),
    );
    const ids = logged.map((r) => {
      expect(r.status).toBe(201);
      return r.body.id as string;
    });
    // Three concurrent resolutions of one incident, two closures of another, a move of a third.
    await Promise.all([
      ...[1, 2, 3].map(() =>
        api('POST', `/v1/incidents/${ids[0]}`, { key: firm.key, body: { status: 'RESOLVED' } }),
      ),
      ...[1, 2].map(() =>
        api('POST', `/v1/incidents/${ids[2]}`, { key: firm.key, body: { status: 'CLOSED' } }),
      ),
      api('POST', `/v1/incidents/${ids[1]}`, { key: firm.key, body: { status: 'INVESTIGATING' } }),
    ]);
    expect(
      (await api('POST', `/v1/incidents/${ids[0]}`, { key: firm.key, body: { status: 'CLOSED' } })).status,
    ).toBe(200);

    const stats = await api('GET', '/v1/incidents/stats', { key: firm.key });
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual(incidentStats(await listIncidentFacts(deps, firm.firmId), new Date()));
    expect(stats.body).toMatchObject({ total: 5, open: 3, resolved: 2, critical: 2 });
    await recountFirmCounters(deps, firm.firmId);
    expect((await api('GET', '/v1/incidents/stats', { key: firm.key })).body).toEqual(stats.body);
  });
});

describe('certificate counter', () => {
  it('counts a certificate once however often it is requested or its message delivered', async () => {
    const firm = await createFirm();
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const record = await getRecordBySequence(deps, firm.firmId, 1);
    expect(record).not.toBeNull();
    const requests = await Promise.all(
      [1, 2, 3, 4].map(() => api('POST', `/v1/ledger/records/${record!.id}/certificate`, { key: firm.key })),
    );
    for (const r of requests) expect(r.status).toBe(200);
    // The same message delivered again, twice at once, directly to the worker's code.
    const message = {
      firmId: firm.firmId,
      sequenceNumber: 1,
      recordId: record!.id,
      eventType: record!.eventType,
    };
    const issued = await Promise.all([1, 2].map(() => issueCertificate(deps, message, stack.baseUrl)));
    expect(new Set(issued.map((c) => c.id)).size).toBe(1);
    expect((await api('GET', '/v1/firm/me/stats', { key: firm.key })).body).toEqual({
      recordCount: 1,
      certificateCount: 1,
      jobCount: 0,
    });
    await recountFirmCounters(deps, firm.firmId);
    expect((await api('GET', '/v1/firm/me/stats', { key: firm.key })).body.certificateCount).toBe(1);
  });
});

describe('ledgerctl backfill counters (part 5)', () => {
  it('makes data written without counters answer as before, and is idempotent', async () => {
    const firm = await createFirm();
    const model = { provider: 'legacy', version: '0.9' };
    const old = [
      jobItem(firm.firmId, { model, outcome: 'REJECTED', completedAt: '2026-01-10T10:00:00.000Z' }),
      jobItem(firm.firmId, { model, outcome: 'APPROVED', completedAt: '2026-01-11T10:00:00.000Z' }),
      jobItem(firm.firmId, {
        model,
        status: 'QUEUED',
        vulnerabilityFlags: ['health'],
        requiresSeniorSignOff: true,
      }),
    ];
    // Written the old way: items only, no counters, markers or aggregates.
    for (const job of old)
      await deps.db.send(
        new PutCommand({ TableName: deps.tables.main, Item: { ...keys.job(firm.firmId, job.id), ...job } }),
      );
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.main,
        Item: {
          ...keys.incident(firm.firmId, 'inc_00000000000000000000000001'),
          id: 'inc_00000000000000000000000001',
          firmId: firm.firmId,
          title: 't',
          description: 'd',
          severity: 'CRITICAL',
          category: 'OTHER',
          status: 'OPEN',
          reportedAt: new Date().toISOString(),
          resolvedAt: null,
          version: 1,
        },
      }),
    );
    expect((await api('GET', '/v1/firm/me/stats', { key: firm.key })).body.jobCount).toBe(0);
    expect((await api('GET', '/v1/models', { key: firm.key })).body).toEqual([]);

    const run = await ledgerctl(stack.dataDir, ['backfill', 'counters', '--firm', firm.firmId]);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      firms: [
        {
          firmId: firm.firmId,
          counters: { jobs: 3, incidents: 1, certificates: 0 },
          aggregated: 2,
          alreadyAggregated: 0,
        },
      ],
      lastFirmId: firm.firmId,
    });

    const after = await jobReports(firm);
    expect(after.stats.jobCount).toBe(3);
    expect(after.models).toEqual(await modelsFromItems(firm.firmId));
    expect(after.models[0]).toMatchObject({ jobCount: 3, completedJobs: 2, openJobs: 1, rejected: 1 });
    expect(after.vulnerability).toMatchObject({ totalFlaggedJobs: 1, awaitingSeniorSignOff: 1 });
    expect(after.vulnerability.recentFlaggedJobs.map((j: { id: string }) => j.id)).toEqual([old[2]!.id]);
    expect((await api('GET', '/v1/incidents/stats', { key: firm.key })).body).toMatchObject({
      total: 1,
      open: 1,
      critical: 1,
    });
    // The reporting aggregates were backfilled too: the bias report sees the two completed jobs.
    const bias = await api('GET', '/v1/bias?from=2026-01-01&to=2026-01-31', { key: firm.key });
    expect(bias.body.totalRecords).toBe(2);

    // Rerunning changes nothing: absolute counters, aggregation markers already there.
    const again = await backfillCounters(deps, { firmId: firm.firmId });
    expect(again.firms[0]).toMatchObject({ aggregated: 0, alreadyAggregated: 2 });
    expect(await jobReports(firm)).toEqual(after);
    expect(
      (await api('GET', '/v1/bias?from=2026-01-01&to=2026-01-31', { key: firm.key })).body.totalRecords,
    ).toBe(2);
  });
});

describe('backup status from counters and the background reconciliation (part 2)', () => {
  it('says when it was reconciled and counts records appended since from the head and the outbox', async () => {
    const firm = await createFirm();
    const before = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(before.body).toMatchObject({ healthy: true, reconciledAt: null, reconciliation: null });

    // The scheduled run reconciles every registered firm that is due (a new firm is registered at onboarding).
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const run = await reconcileDueFirms(deps, { maxAgeMs: 0, budgetMs: 60_000 });
    expect(run.reconciled).toContain(firm.firmId);
    const reconciled = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(reconciled.body).toMatchObject({
      healthy: true,
      database: { count: 1 },
      immutableStorage: { count: 1 },
      reconciledAt: expect.any(String),
      reconciliation: { headSequence: 1, missingRowCount: 0, missingCopyCount: 0 },
      pendingCopies: 0,
    });

    // Appended since: counted from the head, copies confirmed by the outbox, without a new reconciliation.
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: true } });
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const later = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(later.body).toMatchObject({
      healthy: true,
      database: { count: 3 },
      immutableStorage: { count: 3 },
      countsMatch: true,
      latestRecord: { sequenceNumber: 3 },
      reconciledAt: reconciled.body.reconciledAt,
      pendingCopies: 0,
    });
    expect(later.body.spotChecks.map((c: { sequenceNumber: number }) => c.sequenceNumber)).toEqual([1, 2, 3]);
  });
});

describe('backup counts through concurrent appends, a concurrent reconciliation and repeated archiving', () => {
  it('equal the head, with copies confirmed by the outbox however often a record is archived', async () => {
    const firm = await createFirm();
    // Appends whose dispatch fails keep their outbox entry after the copy is written: the stack's outbox sweep
    // archives them again (a second delivery of the same copy) and only then clears the entries.
    const refusing: Deps = {
      ...deps,
      queue: {
        send: async () => {
          throw new Error('dispatch deferred to the stack');
        },
      },
    };
    const append = (n: number) =>
      appendRecord(refusing, {
        firmId: firm.firmId,
        eventType: 'DOCUMENT_SUBMITTED',
        actor: { id: 'usr_x', name: 'Xavier', fcaRef: 'XAV00001' },
        documentHash: 'b'.repeat(64),
        documentMetadata: { documentReference: `DOC-${n}` },
      });
    await Promise.all([
      ...Array.from({ length: 12 }, (_, n) => append(n)),
      reconcileBackup(deps, firm.firmId),
    ]);
    const status = async () => (await api('GET', '/v1/firm/me/backup-status', { key: firm.key })).body;
    const first = await status();
    expect(first).toMatchObject({
      healthy: true,
      database: { count: 12 },
      immutableStorage: { count: 12 },
      pendingCopies: 0,
    });
    // Once the sweep has archived every record a second time and cleared the outbox, nothing changed.
    await eventually(async () => (await pendingOutboxSequences(deps, firm.firmId, 0, 1)).length === 0);
    expect(await status()).toMatchObject({
      healthy: true,
      database: { count: 12 },
      immutableStorage: { count: 12 },
      pendingCopies: 0,
    });
    // And a fresh reconciliation agrees.
    await reconcileBackup(deps, firm.firmId);
    expect(await status()).toMatchObject({
      healthy: true,
      database: { count: 12 },
      immutableStorage: { count: 12 },
      reconciliation: { headSequence: 12, missingRowCount: 0, missingCopyCount: 0 },
    });
  });
});
