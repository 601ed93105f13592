import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEDGER_EVENT_TYPES } from '../../shared/ledger/event-types.js';
import { ledgerctl, ROOT } from '../support/local-stack.js';
import { api, createFirm, stack, type TestFirm } from './helpers.js';

/**
 * `ledgerctl seed` (issue 14, part 4): a bulk firm history written straight through the store must be what the
 * live paths would have left: the chain verifies (online and offline), and lists, reports and stats answer
 * with the seeded numbers.
 */

interface SeedSummary {
  firmId: string;
  records: number;
  firstSequence: number;
  lastSequence: number;
  from: string;
  to: string;
  jobs: number;
  certificates: number;
  incidents: number;
  itemsWritten: { ledger: number; main: number; total: number };
  objectsWritten: number;
  seconds: number;
  itemsPerSecond: number;
}

const RECORDS = 300;
const JOBS = 60;

/** Every item of a paged list, following `pagination.nextCursor` (a short page may still have a next). */
async function everything<T>(firm: TestFirm, path: string): Promise<T[]> {
  const items: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  let next = `${path}${separator}pageSize=100`;
  for (;;) {
    const { status, body } = await api('GET', next, { key: firm.key });
    expect(status).toBe(200);
    items.push(...(body.data as T[]));
    const cursor = body.pagination.nextCursor as string | null | undefined;
    if (cursor) next = `${path}${separator}pageSize=100&cursor=${encodeURIComponent(cursor)}`;
    else if (cursor === undefined && body.data.length === 100)
      next = `${path}${separator}pageSize=100&page=${body.pagination.page + 1}`;
    else return items;
  }
}

async function waitForRun(firm: TestFirm, id: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await api('GET', `/v1/ledger/integrity/verifications/${id}`, { key: firm.key });
    if (body.verification.status === 'COMPLETED') return body.verification;
    if (Date.now() > deadline) throw new Error(`Run ${id} did not complete: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('ledgerctl seed', () => {
  let firm: TestFirm;
  let summary: SeedSummary;

  beforeAll(async () => {
    firm = await createFirm();
    const result = await ledgerctl(stack.dataDir, [
      'seed',
      '--firm',
      firm.firmId,
      '--records',
      String(RECORDS),
      '--jobs',
      String(JOBS),
      '--days',
      '200',
    ]);
    if (result.code !== 0) throw new Error(`ledgerctl seed failed: ${result.stderr}`);
    summary = result.json as SeedSummary;
  }, 180_000);

  it('prints one JSON object with the counts, items written and the rate', () => {
    expect(summary).toMatchObject({
      firmId: firm.firmId,
      records: RECORDS,
      firstSequence: 1,
      lastSequence: RECORDS,
      jobs: JOBS,
      objectsWritten: RECORDS,
    });
    expect(summary.certificates).toBeGreaterThan(0);
    expect(summary.incidents).toBeGreaterThan(0);
    // Records and the head; jobs, facts, buckets, certificates, incidents and the reviewers.
    expect(summary.itemsWritten.ledger).toBe(RECORDS + 1);
    expect(summary.itemsWritten.main).toBeGreaterThan(2 * JOBS + summary.certificates);
    expect(summary.itemsWritten.total).toBe(summary.itemsWritten.ledger + summary.itemsWritten.main);
    expect(summary.itemsPerSecond).toBeGreaterThan(0);
  });

  it('writes a gapless chain of every ordinary kind, timestamps non-decreasing, inside the period', async () => {
    const records = await everything<{ sequenceNumber: number; eventType: string; timestamp: string }>(
      firm,
      '/v1/ledger/records?order=asc',
    );
    expect(records.map((r) => r.sequenceNumber)).toEqual(Array.from({ length: RECORDS }, (_, i) => i + 1));
    const times = records.map((r) => r.timestamp);
    expect([...times].sort()).toEqual(times);
    expect(Date.parse(times[0]!)).toBeGreaterThanOrEqual(Date.now() - 201 * 86_400_000);
    const kinds = new Set(records.map((r) => r.eventType));
    const invented = ['CHAIN_REPAIRED', 'SIGNING_KEY_ROTATED', 'TAMPERING_DETECTED'];
    expect([...kinds].sort()).toEqual(LEDGER_EVENT_TYPES.filter((t) => !invented.includes(t)).sort());
  });

  it('verifies clean, online and with the offline evidence verifier', async () => {
    const { status, body } = await api('POST', '/v1/ledger/integrity/verify', { key: firm.key, body: {} });
    expect(status).toBe(200);
    const run =
      body.verification.status === 'COMPLETED'
        ? body.verification
        : await waitForRun(firm, body.verification.id);
    expect(run).toMatchObject({ valid: true, brokenCount: 0, recordsChecked: RECORDS });

    const exported = await api('GET', '/v1/ledger/export?fromSequence=1&toSequence=300', { key: firm.key });
    expect(exported.status).toBe(200);
    const file = join(stack.dataDir, `seed-bundle-${firm.firmId}.json`);
    writeFileSync(file, JSON.stringify(exported.body));
    const cli = spawnSync(process.execPath, [join(ROOT, 'bin/verify-evidence.mjs'), file], {
      encoding: 'utf8',
    });
    expect(JSON.parse(cli.stdout)).toMatchObject({ valid: true });
    expect(cli.status).toBe(0);
  });

  it('serves the seeded numbers: stats, backup status, jobs, records by kind, reports, certificates, incidents', async () => {
    const stats = await api('GET', '/v1/firm/me/stats', { key: firm.key });
    expect(stats.body).toMatchObject({ jobCount: JOBS, certificateCount: summary.certificates });
    expect(stats.body.recordCount).toBeGreaterThanOrEqual(RECORDS);

    const backup = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(backup.body).toMatchObject({ healthy: true, countsMatch: true });

    const jobs = await everything<{ status: string; completedAt: string }>(firm, '/v1/review/jobs');
    expect(jobs).toHaveLength(JOBS);
    for (const job of jobs) expect(['APPROVED', 'MODIFIED', 'REJECTED']).toContain(job.status);
    const submitted = await everything(firm, '/v1/ledger/records?eventType=DOCUMENT_SUBMITTED');
    expect(submitted).toHaveLength(JOBS);
    let outcomes = 0;
    for (const kind of ['DOCUMENT_APPROVED', 'DOCUMENT_MODIFIED', 'DOCUMENT_REJECTED'])
      outcomes += (await everything(firm, `/v1/ledger/records?eventType=${kind}`)).length;
    expect(outcomes).toBe(JOBS);

    // The reports read the seeded facts and buckets: every job completed in the last year.
    const bias = await api('GET', '/v1/bias', { key: firm.key });
    expect(bias.body.totalRecords).toBe(JOBS);
    const from = new Date(Date.now() - 364 * 86_400_000).toISOString();
    const duty = await api('GET', `/v1/reports/consumer-duty?from=${from}`, { key: firm.key });
    expect(duty.status).toBe(200);
    expect(duty.body.metrics.outcomes.total).toBe(JOBS);
    const models = await api('GET', '/v1/models', { key: firm.key });
    const modelJobs = (models.body as { jobCount: number }[]).reduce((n, m) => n + m.jobCount, 0);
    expect(modelJobs).toBeGreaterThan(0);
    expect(modelJobs).toBeLessThanOrEqual(JOBS);
    // Counters (recounted by seed from the items it wrote) answer the registry and the vulnerability report.
    const vulnerability = await api('GET', '/v1/vulnerability', { key: firm.key });
    expect(vulnerability.body.totalFlaggedJobs + vulnerability.body.totalUnflaggedJobs).toBe(JOBS);
    const incidentStats = await api('GET', '/v1/incidents/stats', { key: firm.key });
    expect(incidentStats.body.total).toBe(summary.incidents);

    const certificates = await api('GET', '/v1/ledger/certificates', { key: firm.key });
    expect(certificates.body).toHaveLength(summary.certificates);
    const verdict = await api('GET', `/v1/verify/${certificates.body[0].id}`);
    expect(verdict.body).toMatchObject({ valid: true });

    const incidents = await api('GET', '/v1/incidents', { key: firm.key });
    expect(incidents.body).toHaveLength(summary.incidents);
  });

  it('refuses an unknown firm, a missing size, a record count too small for the jobs or the incidents', async () => {
    const before = await api('GET', '/v1/firm/me/stats', { key: firm.key });
    const unknown = await ledgerctl(stack.dataDir, [
      'seed',
      '--firm',
      'firm_nope',
      '--records',
      '10',
      '--jobs',
      '0',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No firm firm_nope');
    const missing = await ledgerctl(stack.dataDir, ['seed', '--firm', firm.firmId, '--jobs', '1']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--records is required');
    const small = await ledgerctl(stack.dataDir, [
      'seed',
      '--firm',
      firm.firmId,
      '--records',
      '20',
      '--jobs',
      '5',
    ]);
    expect(small.code).toBe(1);
    expect(small.stderr).toContain('--records must be at least');
    const crowded = await ledgerctl(stack.dataDir, [
      'seed',
      '--firm',
      firm.firmId,
      '--records',
      '40',
      '--jobs',
      '2',
      '--incidents',
      '30',
    ]);
    expect(crowded.code).toBe(1);
    expect(crowded.stderr).toContain('cannot hold');
    const negative = await ledgerctl(stack.dataDir, [
      'seed',
      ...['--firm', firm.firmId, '--records', '40', '--jobs', '2', '--incidents', '1.5'],
    ]);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toContain('--incidents must be a non-negative integer');
    // Nothing was added by the refusals.
    const after = await api('GET', '/v1/firm/me/stats', { key: firm.key });
    expect(after.body.recordCount).toBe(before.body.recordCount);
  });

  it('logs exactly --incidents incidents when asked (the bench fills the incident list at every size)', async () => {
    const other = await createFirm();
    const result = await ledgerctl(stack.dataDir, [
      'seed',
      ...['--firm', other.firmId, '--records', '120', '--jobs', '10', '--incidents', '25'],
    ]);
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({ records: 120, incidents: 25 });
    const incidents = await api('GET', '/v1/incidents', { key: other.key });
    expect(incidents.body).toHaveLength(25);
  }, 120_000);
});
