/**
 * bench/reports: latency of the bias, drift and Consumer Duty reports over HTTP on the embedded stack for a
 * firm with 1,000, 10,000 and 100,000 completed jobs (BENCH_SIZES, comma-separated, to change them).
 * Jobs are completed uniformly over the last 365 days, across 3 models, 4 document types, 12 segment
 * values in 3 dimensions, 10 reviewers, 10 % with vulnerability flags; they are seeded straight into
 * DynamoDB with their aggregates (seedCompletedJobs), as the reporting worker would have left them.
 *
 *   npm run bench:reports            (BENCH_SIZES=1000,10000 for a quicker run)
 */
import { cpus, loadavg } from 'node:os';
import type { JobOutcome } from '../shared/domain/review/jobs.js';
import { newId } from '../shared/ids.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { factOfJob } from '../shared/domain/governance/aggregates.js';
import { seedCompletedJobs } from '../shared/services/reporting.js';
import { seedAggregates } from '../shared/store/reporting-store.js';
import type { ReviewJobItem } from '../shared/store/review-job-store.js';
import { createFirm, startStack } from './lib/stack.js';

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const DAY = 86_400_000;
/** BENCH_JOB_ITEMS=0 seeds only what the measured reports read (facts and buckets), not the job items. */
const JOB_ITEMS = process.env.BENCH_JOB_ITEMS !== '0';

const MODELS = [
  { provider: 'openai', version: 'gpt-4o-2024-08-06' },
  { provider: 'anthropic', version: 'claude-3-5-sonnet' },
  { provider: 'internal', version: 'suitability-v2' },
];
const DOC_TYPES = ['SUITABILITY_REPORT', 'PENSION_TRANSFER', 'ANNUAL_REVIEW', 'PROTECTION'];
const AGE = ['18-29', '30-44', '45-59', '60-74', '75+'];
const RISK = ['cautious', 'balanced', 'adventurous'];
const REGION = ['north', 'south', 'wales', 'scotland'];
const FLAGS = ['health', 'life_event', 'capability', 'resilience'] as const;

/** A deterministic pseudo-random stream, so runs are comparable. */
function prng(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function completedJob(firmId: string, now: number, random: () => number): ReviewJobItem {
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const completedAt = now - Math.floor(random() * 365 * DAY);
  const submittedAt = completedAt - Math.floor(random() * 60 * 3_600_000);
  const roll = random();
  const outcome: JobOutcome =
    roll < 0.15 ? 'REJECTED' : roll < 0.35 ? 'APPROVED_WITH_MODIFICATIONS' : 'APPROVED';
  const flagged = random() < 0.1;
  return {
    id: newId('job'),
    firmId,
    documentReference: `DOC-${Math.floor(random() * 1e9)}`,
    documentType: pick(DOC_TYPES),
    documentUrl: 'immutable://documents/bench',
    documentHash: 'b'.repeat(64),
    clientReference: `CLI-${Math.floor(random() * 1e6)}`,
    factFindSummary: { age: 40 },
    status: outcome === 'REJECTED' ? 'REJECTED' : outcome === 'APPROVED' ? 'APPROVED' : 'MODIFIED',
    priority: 'STANDARD',
    outcome,
    outcomeReason: outcome === 'REJECTED' ? 'Unsuitable' : null,
    modifications: outcome === 'APPROVED_WITH_MODIFICATIONS' ? 'Reworded' : null,
    assignedReviewerId: `usr_bench${Math.floor(random() * 10)}`,
    assignedAt: new Date(submittedAt).toISOString(),
    completedAt: new Date(completedAt).toISOString(),
    submittedAt: new Date(submittedAt).toISOString(),
    slaDeadline: new Date(submittedAt + 48 * 3_600_000).toISOString(),
    aiContext: random() < 0.8 ? { model: pick(MODELS) } : null,
    vulnerabilityFlags: flagged ? [pick(FLAGS)] : [],
    requiresSeniorSignOff: flagged,
    clientSegments: { ageBand: pick(AGE), riskProfile: pick(RISK), region: pick(REGION) },
    ledgerRecordId: null,
    certificateId: null,
    annotationCount: Math.floor(random() * 4),
    slaBreachedAt: null,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const stack = await startStack();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stack.stop().finally(() => process.exit(130)));
}
const rows: string[] = [];
try {
  const deps = createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
  for (const size of SIZES) {
    const onboarded = await createFirm(stack, { name: `Bench Reports ${size}` });
    const firmId = onboarded.firm.id;
    const random = prng(size);
    const now = Date.now();
    const seedStart = performance.now();
    const jobs = Array.from({ length: size }, () => completedJob(firmId, now, random));
    if (JOB_ITEMS) {
      // Job items and aggregates, as the review flow and the reporting worker leave them.
      await seedCompletedJobs(deps, firmId, jobs);
    } else {
      // The measured reports never read job items: facts and buckets only (BENCH_JOB_ITEMS=0).
      await seedAggregates(
        deps,
        firmId,
        jobs.map((job) => factOfJob(job)!),
      );
    }
    const seedSeconds = (performance.now() - seedStart) / 1000;
    console.error(`seeded ${size} jobs in ${seedSeconds.toFixed(1)} s`);

    const reports: Array<[string, string]> = [
      ['bias (12 months)', '/v1/bias'],
      ['drift (90/30 days)', '/v1/models/drift'],
      ['consumer duty (quarter)', '/v1/reports/consumer-duty'],
      [
        'consumer duty (12 months)',
        `/v1/reports/consumer-duty?from=${new Date(now - 365 * DAY).toISOString()}`,
      ],
    ];
    for (const [name, path] of reports) {
      const times: number[] = [];
      let checked = '';
      for (let run = 0; run <= RUNS; run++) {
        const start = performance.now();
        const response = await fetch(`${stack.baseUrl}${path}`, {
          headers: { 'x-service-key': onboarded.apiKey },
        });
        const body = (await response.json()) as {
          totalRecords?: number;
          metrics?: { outcomes: { total: number } };
          signals?: unknown[];
        };
        const elapsed = performance.now() - start;
        if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
        if (run > 0) times.push(elapsed); // run 0 warms the handler up
        checked =
          body.totalRecords !== undefined
            ? `${body.totalRecords} jobs`
            : body.metrics
              ? `${body.metrics.outcomes.total} jobs`
              : `${body.signals?.length ?? 0} signals`;
      }
      times.sort((a, b) => a - b);
      rows.push(
        `| ${size.toLocaleString('en-GB')} | ${name} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 100).toFixed(0)} | ${checked} |`,
      );
      console.error(rows[rows.length - 1]);
    }
    rows.push(
      `| ${size.toLocaleString('en-GB')} | (seeding: ${JOB_ITEMS ? 'job items + ' : ''}facts + buckets, ms) | ${(seedSeconds * 1000).toFixed(0)} | | |`,
    );
  }
  console.log(
    `\n## bench/reports — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log(`${RUNS} measured requests per report after one warm-up, over HTTP with an API key.\n`);
  console.log('| completed jobs | report | p50 ms | max ms | answered over |');
  console.log('|---:|---|---:|---:|---|');
  for (const row of rows) console.log(row);
} finally {
  await stack.stop();
}
