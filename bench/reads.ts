/**
 * bench/reads (issue 14): how every list, search, count and report endpoint grows with a firm's age. One
 * embedded stack (LOCAL_DYNAMO_METRICS on, so GET /__local/metrics counts the items DynamoDB reads) holds one
 * firm per size, seeded with `ledgerctl seed --create` (default 10,000 records / 2,000 jobs and
 * 100,000 / 20,000, with 250 and 2,500 incidents); before each seed a raw BatchWriteItem loop against the same DynamoDB Local gives the
 * yardstick of the seed's speed (issue 14: at least 80 %). Then every request is timed on every firm, with and
 * without each filter, first page and a deep page (by cursor when the answer offers one: `pagination.nextCursor`
 * or a `Link: <...>; rel="next"` header; otherwise by page number): p50 and p99 over BENCH_RUNS calls after one
 * warm-up, DynamoDB items read per request (ScannedCount summed, averaged over the calls), and the large-to-small
 * p50 ratio. Prints markdown for docs/benchmarks.md.
 *
 *   npm run bench:reads -- [--sizes 10000:2000,100000:20000] [--runs 20] [--data-dir DIR] [--deep-pages 40]
 *
 * A size is RECORDS:JOBS[:INCIDENTS]; incidents default to one per 40 records, so every size fills the incident
 * list (the spec's 200 most recent) and its ratio measures growth with age, not the list filling up.
 *
 * --data-dir reuses (and keeps) a stack's DATA_DIR: firms seeded by an earlier run with the same sizes are found
 * in DIR/bench-reads.json and not seeded again. Environment equivalents: BENCH_SIZES, BENCH_RUNS, BENCH_DATA_DIR,
 * BENCH_DEEP_PAGES; BENCH_RAW_ITEMS (3000) sizes the raw BatchWriteItem loop.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { ledgerctl, localMetrics } from '../test/support/local-stack.js';
import { rawBatchWriteRate, type RawRate } from './lib/raw-batch-write.js';
import { startStack, type EmbeddedStack } from './lib/stack.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string' },
    runs: { type: 'string' },
    'data-dir': { type: 'string' },
    'deep-pages': { type: 'string' },
  },
});
const SIZES = (values.sizes ?? process.env.BENCH_SIZES ?? '10000:2000,100000:20000')
  .split(',')
  .map((spec) => {
    const [records, jobs, given] = spec.split(':').map(Number);
    // Incidents: one per 40 records unless given, so that every size fills the incident list (the spec's 200
    // most recent) and the ratio measures growth with age, not a list filling up.
    const incidents = given ?? Math.floor(records! / 40);
    if (!Number.isInteger(records) || !Number.isInteger(jobs) || !Number.isInteger(incidents))
      throw new Error(`Bad size ${spec}: RECORDS:JOBS[:INCIDENTS]`);
    return { records: records!, jobs: jobs!, incidents, key: `${records}:${jobs}:${incidents}` };
  });
const RUNS = Number(values.runs ?? process.env.BENCH_RUNS ?? 20);
const DEEP_PAGES = Number(values['deep-pages'] ?? process.env.BENCH_DEEP_PAGES ?? 40);
const RAW_ITEMS = Number(process.env.BENCH_RAW_ITEMS ?? 3000);
const DATA_DIR = values['data-dir'] ?? process.env.BENCH_DATA_DIR;
/** About the size of a seeded record row (its JSON), for the raw loop. */
const RECORD_BYTES = 1100;

interface SeededFirm {
  firmId: string;
  apiKey: string;
  seed: Record<string, unknown> | null;
  raw: RawRate | null;
}

interface Request {
  name: string;
  path: string;
  /** Also time a deep page of it (by cursor, or by page number). */
  deep?: boolean;
  token?: boolean;
}

interface Measure {
  p50: number;
  p99: number;
  itemsRead: number | null;
  status: number;
  note: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function metrics(stack: EmbeddedStack): Promise<number | null> {
  return (await localMetrics(stack)).dynamoItemsRead ?? null;
}

function headers(firm: SeededFirm & { token: string | null }, token?: boolean): Record<string, string> {
  return token && firm.token ? { authorization: `Bearer ${firm.token}` } : { 'x-service-key': firm.apiKey };
}

/** The next page's path, from the answer's cursor or Link header; null when it offers none. */
function nextPage(path: string, response: Response, body: unknown): string | null {
  const link = response.headers.get('link');
  const match = link ? /<([^>]+)>\s*;\s*rel="?next"?/.exec(link) : null;
  if (match) {
    const url = new URL(match[1]!, 'http://x');
    return `${url.pathname}${url.search}`;
  }
  const cursor = (body as { pagination?: { nextCursor?: string | null } } | null)?.pagination?.nextCursor;
  if (!cursor) return null;
  const url = new URL(path, 'http://x');
  url.searchParams.set('cursor', cursor);
  url.searchParams.delete('page');
  return `${url.pathname}${url.search}`;
}

/** The path of a deep page: DEEP_PAGES pages on by cursor, or page DEEP_PAGES (capped at the last page). */
async function deepPath(
  stack: EmbeddedStack,
  firm: SeededFirm & { token: string | null },
  request: Request,
): Promise<{ path: string; how: string } | null> {
  let path = request.path;
  for (let page = 1; page <= DEEP_PAGES; page++) {
    const response = await fetch(`${stack.baseUrl}${path}`, { headers: headers(firm, request.token) });
    const body = (await response.json()) as { pagination?: { totalPages?: number } } | null;
    const next = nextPage(path, response, body);
    if (!next) {
      if (page > 1) return { path, how: `cursor, page ${page}` };
      const totalPages = body?.pagination?.totalPages;
      if (!totalPages || totalPages < 2) return null;
      const url = new URL(request.path, 'http://x');
      url.searchParams.set('page', String(Math.min(DEEP_PAGES, totalPages)));
      return { path: `${url.pathname}${url.search}`, how: `page ${Math.min(DEEP_PAGES, totalPages)}` };
    }
    path = next;
  }
  return { path, how: `cursor, page ${DEEP_PAGES + 1}` };
}

async function measure(
  stack: EmbeddedStack,
  firm: SeededFirm & { token: string | null },
  path: string,
  token?: boolean,
): Promise<Measure> {
  const times: number[] = [];
  let status = 0;
  let note = '';
  const before = await metrics(stack);
  for (let run = 0; run <= RUNS; run++) {
    const start = performance.now();
    const response = await fetch(`${stack.baseUrl}${path}`, { headers: headers(firm, token) });
    const text = await response.text();
    const elapsed = performance.now() - start;
    status = response.status;
    if (status !== 200) note = text.slice(0, 120);
    if (run > 0) times.push(elapsed);
  }
  const after = await metrics(stack);
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    itemsRead: before === null || after === null ? null : (after - before) / (RUNS + 1),
    status,
    note,
  };
}

/** Values the filters use, read from the firm's own data. */
async function probe(stack: EmbeddedStack, firm: SeededFirm) {
  const get = async (path: string) =>
    (await (
      await fetch(`${stack.baseUrl}${path}`, { headers: { 'x-service-key': firm.apiKey } })
    ).json()) as {
      data: Record<string, unknown>[];
    };
  const submitted = (await get('/v1/ledger/records?eventType=DOCUMENT_SUBMITTED&pageSize=1')).data[0]!;
  const outcome = (await get('/v1/ledger/records?eventType=DOCUMENT_APPROVED&pageSize=1')).data[0]!;
  const job = (await get('/v1/review/jobs?pageSize=1')).data[0]!;
  const metadata = submitted.documentMetadata as Record<string, string>;
  return {
    actorId: outcome.actorId as string,
    documentHash: submitted.documentHash as string,
    documentReference: metadata.documentReference!,
    clientReference: job.clientReference as string,
  };
}

function requests(values: Awaited<ReturnType<typeof probe>>): Request[] {
  const now = Date.now();
  const from = new Date(now - 30 * 86_400_000).toISOString();
  const to = new Date(now - 15 * 86_400_000).toISOString();
  const records = '/v1/ledger/records';
  return [
    { name: 'records', path: records, deep: true },
    { name: 'records asc', path: `${records}?order=asc`, deep: true },
    { name: 'records eventType', path: `${records}?eventType=DOCUMENT_APPROVED`, deep: true },
    { name: 'records actorId', path: `${records}?actorId=${values.actorId}`, deep: true },
    { name: 'records documentHash', path: `${records}?documentHash=${values.documentHash}` },
    { name: 'records documentReference', path: `${records}?documentReference=${values.documentReference}` },
    { name: 'records date range', path: `${records}?startDate=${from}&endDate=${to}`, deep: true },
    {
      name: 'records eventType + date range',
      path: `${records}?eventType=REVIEW_STARTED&startDate=${from}&endDate=${to}`,
    },
    { name: 'jobs', path: '/v1/review/jobs', deep: true },
    { name: 'jobs status=APPROVED', path: '/v1/review/jobs?status=APPROVED', deep: true },
    { name: 'jobs status=QUEUED (none)', path: '/v1/review/jobs?status=QUEUED' },
    { name: 'review queue (user)', path: '/v1/review/queue', token: true },
    {
      name: 'explainability search',
      path: `/v1/explainability/search?clientReference=${values.clientReference}`,
    },
    { name: 'certificates', path: '/v1/ledger/certificates', deep: true },
    { name: 'impact assessments', path: '/v1/impact-assessments', deep: true },
    { name: 'incidents', path: '/v1/incidents' },
    { name: 'incident stats', path: '/v1/incidents/stats' },
    { name: 'report log', path: '/v1/reports', deep: true },
    { name: 'models', path: '/v1/models' },
    { name: 'model timeline', path: '/v1/models/openai/gpt-4o-2024-08-06/timeline' },
    { name: 'drift', path: '/v1/models/drift' },
    { name: 'vulnerability', path: '/v1/vulnerability' },
    { name: 'bias (12 months)', path: '/v1/bias' },
    { name: 'consumer duty (quarter)', path: '/v1/reports/consumer-duty' },
    { name: 'stats', path: '/v1/firm/me/stats' },
    { name: 'backup status', path: '/v1/firm/me/backup-status' },
    { name: 'users', path: '/v1/firm/me/users' },
  ];
}

/** Seeds (or finds, with --data-dir) the firm of a size, after a raw BatchWriteItem run in the same stack. */
async function firmOf(
  stack: EmbeddedStack,
  size: (typeof SIZES)[number],
  state: Record<string, SeededFirm>,
): Promise<SeededFirm> {
  const known = state[size.key];
  if (known) return known;
  const deps = createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
  const raw = await rawBatchWriteRate(deps, { items: RAW_ITEMS, itemBytes: RECORD_BYTES });
  console.error(
    `raw BatchWriteItem: ${raw.itemsPerSecond} items/s (${raw.items} items of ${raw.itemBytes} B)`,
  );
  const result = await ledgerctl(stack.dataDir, [
    'seed',
    '--create',
    '--name',
    `Bench Reads ${size.key}`,
    '--records',
    String(size.records),
    '--jobs',
    String(size.jobs),
    '--incidents',
    String(size.incidents),
  ]);
  if (result.code !== 0) throw new Error(`ledgerctl seed failed: ${result.stderr}`);
  const seed = result.json as { firmId: string; created: { apiKey: string }; itemsPerSecond: number };
  console.error(`seeded ${size.key}: ${JSON.stringify({ ...seed, created: undefined })}`);
  const { created, ...summary } = seed;
  const firm = { firmId: seed.firmId, apiKey: created.apiKey, seed: summary, raw };
  state[size.key] = firm;
  return firm;
}

const stack = await startStack({
  env: { LOCAL_DYNAMO_METRICS: 'true' },
  ...(DATA_DIR ? { dataDir: DATA_DIR } : {}),
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stack.stop().finally(() => process.exit(130)));
}
try {
  const stateFile = join(stack.dataDir, 'bench-reads.json');
  const state = (existsSync(stateFile) ? JSON.parse(readFileSync(stateFile, 'utf8')) : {}) as Record<
    string,
    SeededFirm
  >;
  const results = new Map<string, Map<string, Measure & { how?: string }>>();
  const seeds: string[] = [];
  for (const size of SIZES) {
    const firm = await firmOf(stack, size, state);
    writeFileSync(stateFile, JSON.stringify(state, null, 2));
    const token = await ledgerctl(stack.dataDir, [
      'token',
      '--firm',
      firm.firmId,
      '--email',
      'admin@seed.invalid',
    ]);
    const withToken = { ...firm, token: (token.json as { token?: string } | null)?.token ?? null };
    if (firm.seed && firm.raw) {
      const rate = firm.seed.itemsPerSecond as number;
      seeds.push(
        `| ${size.key} | ${firm.seed.seconds as number} | ${rate} | ${firm.raw.itemsPerSecond} | ${Math.round((100 * rate) / firm.raw.itemsPerSecond)} % |`,
      );
    }
    const values = await probe(stack, firm);
    const measured = new Map<string, Measure & { how?: string }>();
    for (const request of requests(values)) {
      const first = await measure(stack, withToken, request.path, request.token);
      measured.set(request.name, first);
      console.error(`${size.key} ${request.name}: p50 ${first.p50.toFixed(0)} ms, read ${first.itemsRead}`);
      if (!request.deep) continue;
      const deep = await deepPath(stack, withToken, request);
      if (!deep) continue;
      const m = await measure(stack, withToken, deep.path, request.token);
      measured.set(`${request.name} (deep)`, { ...m, how: deep.how });
      console.error(
        `${size.key} ${request.name} deep (${deep.how}): p50 ${m.p50.toFixed(0)} ms, read ${m.itemsRead}`,
      );
    }
    results.set(size.key, measured);
  }

  const [small, large] = [SIZES[0]!.key, SIZES[SIZES.length - 1]!.key];
  const names = [...(results.get(small)?.keys() ?? [])];
  const fmt = (n: number | null | undefined) =>
    n === null || n === undefined ? '-' : n >= 100 ? n.toFixed(0) : n.toFixed(1);
  console.log(
    `\n## bench/reads — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  console.log(
    `${RUNS} measured requests per line after one warm-up, over HTTP with an API key (the review queue with a user token), in-process handlers. Sizes are records:jobs; "items read" is DynamoDB's ScannedCount summed per request (GET /__local/metrics with LOCAL_DYNAMO_METRICS=true, background workers included).\n`,
  );
  if (seeds.length > 0) {
    console.log('| size | seed s | seed items/s | raw BatchWriteItem items/s | seed / raw |');
    console.log('|---|---:|---:|---:|---:|');
    for (const row of seeds) console.log(row);
    console.log('');
  }
  console.log(
    `| request | ${small} p50 ms | p99 ms | items read | ${large} p50 ms | p99 ms | items read | p50 ratio | status |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const name of names) {
    const a = results.get(small)!.get(name)!;
    const b = results.get(large)?.get(name);
    const label = a.how ? `${name}: ${a.how}` : name;
    const status = [a, b].filter(Boolean).some((m) => m!.status !== 200)
      ? `${a.status}/${b?.status ?? '-'} ${a.note || b?.note || ''}`.trim()
      : '200';
    console.log(
      `| ${label} | ${fmt(a.p50)} | ${fmt(a.p99)} | ${fmt(a.itemsRead)} | ${fmt(b?.p50)} | ${fmt(b?.p99)} | ${fmt(b?.itemsRead)} | ${b ? (b.p50 / a.p50).toFixed(2) : '-'} | ${status} |`,
    );
  }
} finally {
  await stack.stop();
}
