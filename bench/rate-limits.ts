/**
 * bench/rate-limits: fairness of the per-firm write limit (issue 19, part 6; docs/architecture.md §5, "Fair
 * per-firm limits"). One embedded stack run like Lambda (LOCAL_INSTANCES isolated instances, a signer that behaves
 * like KMS: SIGNER_LATENCY_MS per call, SIGNER_RATE_LIMIT calls per second shared by every instance), every firm
 * limited to FIRM_WRITE_RATE_PER_S with FIRM_WRITE_BURST and FIRM_WRITE_CONCURRENCY. Firm B writes at half its limit (open loop: a request
 * every 1 / rate seconds, whatever the answers take), first alone, then while firm A bursts at 10x its limit;
 * both phases in one run. Each write is `POST /v1/incidents` with the firm's API key (an INCIDENT_LOGGED append).
 *
 * Goal: while A bursts, B gets no 429 and a p99 no worse than 2x its p99 alone. Also checked: A is admitted at
 * about its limit (rate x seconds + burst), and nothing is written for a refused request (A's records = A's 201s).
 * Prints markdown for docs/benchmarks.md with date, machine and commit; exits non-zero when a goal is not met or
 * any request got a 5xx.
 *
 *   npm run bench:rate-limits
 *
 * Environment: BENCH_SECONDS (20 per phase), BENCH_RATE (10 writes/s per firm), BENCH_BURST (20),
 * BENCH_CONCURRENCY (1 request in flight per firm, the PRINCIPAL plan's, as rate and burst; 0: no cap; `allowance`
 * defaults to 0, since its whole burst at once is what a cap refuses),
 * BENCH_INSTANCES (8), BENCH_SIGNER_LATENCY_MS (15), BENCH_SIGNER_RATE_LIMIT (300), BENCH_WARMUP (200 appends),
 * BENCH_A: what firm A sends in the second phase.
 *   excess     the default, the goal's scenario: 10x its limit.
 *   allowance  exactly what its limit admits (its whole burst at once, then its rate), nothing refused.
 *   steady     its rate, no burst.
 *   ideal      10x its limit as in `excess`, each request at the request floor (a body that fails validation after
 *              the limit's check: authenticated, a token taken or refused, nothing written), and for each one
 *              admitted the storage work of an append in the most favourable schedule (bench/lib/ideal-append.ts:
 *              cross-instance items, batches as large as a transaction allows), done on a thread of the bench's
 *              own (bench/lib/ideal-writer.ts): the least A's admitted appends could cost this machine.
 *   storage    only that storage work, for what a limiter in this process admits of the same arrivals: no request
 *              of A reaches the stack.
 *   requests   only A's requests as in `ideal`: no storage work, nothing written.
 * All but `excess` are diagnostics: `allowance` and `steady` tell A's admitted work from its excess; `ideal`,
 * `storage` and `requests` whether the goal is within reach of any implementation on this machine, and which part
 * of A's load binds.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { performance } from 'node:perf_hooks';
import { nextStep } from '../shared/domain/rate-limit/token-bucket.js';
import { intEnv } from '../shared/runtime/config.js';
import { startIdealWriter, type IdealWriter } from './lib/ideal-writer.js';
import { FLOOR_BODY, incidentBody, postIncident } from './lib/incident-requests.js';
import { percentile, runLoops } from './lib/measure.js';
import { createFirm, startStack, type EmbeddedStack, type OnboardedFirm } from './lib/stack.js';

const SECONDS = intEnv('BENCH_SECONDS', 20);
const RATE = intEnv('BENCH_RATE', 10);
const BURST = intEnv('BENCH_BURST', 20);
const INSTANCES = intEnv('BENCH_INSTANCES', 8);
const SIGNER_LATENCY_MS = intEnv('BENCH_SIGNER_LATENCY_MS', 15);
const SIGNER_RATE_LIMIT = intEnv('BENCH_SIGNER_RATE_LIMIT', 300);
const WARMUP = intEnv('BENCH_WARMUP', 200);
/** Firm B's rate: half its limit, so it never needs its burst. */
const B_RATE = RATE / 2;
/** Firm A's rate while it bursts: ten times its limit. */
const A_RATE = RATE * 10;
const A_PATTERNS = ['excess', 'allowance', 'steady', 'ideal', 'storage', 'requests'] as const;
const A_PATTERN = (process.env.BENCH_A ?? 'excess') as (typeof A_PATTERNS)[number];
if (!A_PATTERNS.includes(A_PATTERN)) throw new Error(`BENCH_A must be one of ${A_PATTERNS.join(', ')}`);
const CONCURRENCY = intEnv('BENCH_CONCURRENCY', A_PATTERN === 'allowance' ? 0 : 1);
const A_LABEL = {
  excess: `A bursting (${A_RATE}/s)`,
  allowance: `A at its allowance (${BURST} at once, then ${RATE}/s)`,
  steady: `A at its rate (${RATE}/s)`,
  ideal: `A bursting (${A_RATE}/s) at the ideal cost (request floor + ideal storage work)`,
  requests: `A bursting (${A_RATE}/s), requests at the floor only (nothing written)`,
  storage: `A bursting (${A_RATE}/s), only the ideal storage work of what its limit admits (no request: statuses are the bench's limiter's)`,
}[A_PATTERN];
/** A sends 10x its limit (so it must be refused), rather than what its limit admits. */
const LIMITED = A_PATTERN !== 'allowance' && A_PATTERN !== 'steady';
/** The status of a request A's limit admitted: 201, or at the floor 400 (validation after the limit's check). */
const A_ADMITTED = A_PATTERN === 'ideal' || A_PATTERN === 'requests' ? 400 : 201;
/** A's records written per admitted request: none when its requests are only the floor. */
const A_RECORDS_PER_ADMITTED = A_PATTERN === 'requests' ? 0 : 1;

/** HTTP statuses seen, by status. */
type Statuses = Record<number, number>;

interface Flow {
  statuses: Statuses;
  /** Latency of every request, ms. */
  latencies: number[];
  /** From the first request sent to the last answer, ms. */
  wallMs: number;
}

/** Counts one answer of a flow: its status and its latency (ms). */
function tally(flow: Flow, status: number, latencyMs: number): void {
  flow.latencies.push(latencyMs);
  flow.statuses[status] = (flow.statuses[status] ?? 0) + 1;
}

/**
 * One write: POST /v1/incidents with the firm's API key; its status. `floor`: a body that fails validation, after
 * authentication and the limit's check (400 when admitted, nothing written).
 */
async function write(
  stack: EmbeddedStack,
  firm: OnboardedFirm,
  index: number,
  flow: Flow,
  floor = false,
): Promise<number> {
  const start = performance.now();
  const status = await postIncident(stack.baseUrl, firm.apiKey, floor ? FLOOR_BODY : incidentBody(index));
  tally(flow, status, performance.now() - start);
  return status;
}

/**
 * Open loop: a request every 1 / rate seconds for `seconds`, each started on time whatever the earlier ones
 * take (a closed loop would slow down with the server and hide its latency); resolves when all have answered.
 */
async function openLoop(
  rate: number,
  seconds: number,
  flow: Flow,
  request: (index: number) => Promise<unknown>,
) {
  const count = Math.round(rate * seconds);
  const start = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(request(i));
  }
  await Promise.all(pending);
  flow.wallMs = performance.now() - start;
}

/**
 * Firm A's second phase, as BENCH_A says. `allowance` sends its whole burst at once, then its rate from one and a
 * half tokens' time on (so each request finds its token with half a token's time to spare). `ideal` and `storage`
 * need the ideal writer of A's chain.
 */
async function sendA(
  stack: EmbeddedStack,
  a: OnboardedFirm,
  flow: Flow,
  writer?: IdealWriter,
): Promise<void> {
  const request = (i: number) => write(stack, a, i, flow);
  if (A_PATTERN === 'excess') return openLoop(A_RATE, SECONDS, flow, request);
  if (A_PATTERN === 'requests') return openLoop(A_RATE, SECONDS, flow, (i) => write(stack, a, i, flow, true));
  if (A_PATTERN === 'ideal')
    return idealBurst(flow, writer!, async (i) => (await write(stack, a, i, flow, true)) === A_ADMITTED);
  if (A_PATTERN === 'storage') {
    const limiter = benchLimiter();
    return idealBurst(flow, writer!, async () => {
      const admitted = limiter();
      tally(flow, admitted ? A_ADMITTED : 429, 0);
      return admitted;
    });
  }
  if (A_PATTERN === 'steady') return openLoop(RATE, SECONDS, flow, request);
  const start = performance.now();
  const burst = Array.from({ length: BURST }, (_, i) => request(i));
  await new Promise((resolve) => setTimeout(resolve, 1500 / RATE));
  await openLoop(RATE, SECONDS - 1.5 / RATE, flow, (i) => request(BURST + i));
  await Promise.all(burst);
  flow.wallMs = performance.now() - start;
}

/** `storage`: A's limit, kept in this process (the stack's rule, shared/domain/rate-limit/token-bucket.ts). */
function benchLimiter(): () => boolean {
  const policy = { ratePerSecond: RATE, burst: BURST };
  let tat: number | undefined;
  return () => {
    const step = nextStep(policy, Math.round(performance.now() * 1000), tat);
    if (step.kind === 'refuse') return false;
    tat = step.kind === 'refill' ? step.nextTat : tat! + step.add;
    return true;
  };
}

/**
 * `ideal` and `storage`: A's 10x open loop, each arrival `admit`ted or not; the appends admitted are written by
 * the ideal writer, on a thread of its own (bench/lib/ideal-writer.ts).
 */
async function idealBurst(
  flow: Flow,
  writer: IdealWriter,
  admit: (index: number) => Promise<boolean>,
): Promise<void> {
  await openLoop(A_RATE, SECONDS, flow, async (i) => {
    if (await admit(i)) writer.admit();
  });
  await writer.finish();
}

const newFlow = (): Flow => ({ statuses: {}, latencies: [], wallMs: 0 });
const count = (flow: Flow, status: number) => flow.statuses[status] ?? 0;
const fivexx = (flow: Flow) =>
  Object.entries(flow.statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((total, [, n]) => total + n, 0);
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const statusText = (flow: Flow) =>
  Object.entries(flow.statuses)
    .map(([status, n]) => `${n} × ${status}`)
    .join(', ');

/** The number of ledger records of a firm (GET /v1/ledger/records, one record per page: its total). */
async function recordCount(stack: EmbeddedStack, firm: OnboardedFirm): Promise<number> {
  const response = await fetch(`${stack.baseUrl}/v1/ledger/records?pageSize=1`, {
    headers: { 'X-Service-Key': firm.apiKey },
  });
  if (response.status !== 200) throw new Error(`GET /v1/ledger/records: ${response.status}`);
  return ((await response.json()) as { pagination: { total: number } }).pagination.total;
}

interface Result {
  alone: Flow;
  contended: Flow;
  burst: Flow;
  /** Firm A's ledger records written during its burst. */
  aRecords: number;
}

async function measure(stack: EmbeddedStack): Promise<Result> {
  // Warm-up: firms each within their burst, so nothing is refused, until WARMUP appends have run, from as many
  // loops as there are instances, so that every instance has loaded the route (its cold start) before timing.
  console.error(`Warming up (${WARMUP} appends over firms of ${BURST} writes each)...`);
  for (let done = 0; done < WARMUP; done += BURST) {
    const firm = await createFirm(stack, { name: `Bench Advisers warm-up ${done}` });
    await runLoops(Math.min(BURST, WARMUP - done), INSTANCES, (i) => write(stack, firm, i, newFlow()));
  }
  const a = await createFirm(stack, { name: 'Bench Advisers A (bursting)' });
  const b = await createFirm(stack, { name: 'Bench Advisers B (within its limit)' });

  console.error(`Firm B alone at ${B_RATE}/s for ${SECONDS} s...`);
  const alone = newFlow();
  await openLoop(B_RATE, SECONDS, alone, (i) => write(stack, b, i, alone));

  console.error(`Firm B at ${B_RATE}/s while firm A sends ${A_LABEL}, ${SECONDS} s...`);
  const contended = newFlow();
  const burst = newFlow();
  const writer =
    A_PATTERN === 'ideal' || A_PATTERN === 'storage'
      ? await startIdealWriter(stack, a.firm.id, WARMUP / 10)
      : undefined;
  const aBefore = await recordCount(stack, a);
  await Promise.all([
    openLoop(B_RATE, SECONDS, contended, (i) => write(stack, b, 100_000 + i, contended)),
    sendA(stack, a, burst, writer),
  ]);
  return { alone, contended, burst, aRecords: (await recordCount(stack, a)) - aBefore };
}

/** The commit measured (`-dirty` when the working tree has uncommitted changes). */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function report(
  result: Result,
  run: { startedAt: Date; seconds: number; load: number[] },
): { text: string; ok: boolean } {
  const { alone, contended, burst, aRecords } = result;
  const p99Alone = percentile(alone.latencies, 0.99);
  const p99With = percentile(contended.latencies, 0.99);
  const ratio = p99With / p99Alone;
  const bRefused = count(alone, 429) + count(contended, 429);
  const aAdmitted = count(burst, A_ADMITTED);
  // Admitted at most: the burst plus the rate over the time A's requests were being answered. When the stack
  // cannot even take A's requests faster than its limit (a machine too busy), nothing is refused: not met.
  const aCeiling = BURST + Math.ceil((RATE * burst.wallMs) / 1000);
  const errors = fivexx(alone) + fivexx(contended) + fivexx(burst);
  const check = (ok: boolean) => (ok ? 'met' : '**not met**');
  const goals = {
    noRefusal: bRefused === 0,
    p99: ratio <= 2,
    // Sending 10x its limit, A is refused; at its allowance or rate, it is not (a 429 there is a bench defect).
    aLimited: LIMITED ? aAdmitted <= aCeiling && count(burst, 429) > 0 : count(burst, 429) === 0,
    nothingWritten: aRecords === aAdmitted * A_RECORDS_PER_ADMITTED,
    no5xx: errors === 0,
  };
  const cpu = cpus();
  const row = (label: string, flow: Flow) =>
    `| ${label} | ${flow.latencies.length} | ${fixed(percentile(flow.latencies, 0.5))} | ${fixed(percentile(flow.latencies, 0.99))} | ${count(flow, 429)} | ${statusText(flow)} |`;
  const text = [
    `Run: ${run.startedAt.toISOString()}, ${fixed(run.seconds, 0)} s in all, code at ${revision()}`,
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} x ${cpu.length}, ${fixed(totalmem() / 2 ** 30)} GiB, ` +
      `${osType()} ${release()}, Node ${process.version}, load average ${run.load.map((l) => fixed(l, 2)).join(' ')} at start, ` +
      `${loadavg()
        .map((l) => fixed(l, 2))
        .join(' ')} at end`,
    `Settings: FIRM_WRITE_RATE_PER_S=${RATE}, FIRM_WRITE_BURST=${BURST}, FIRM_WRITE_CONCURRENCY=${CONCURRENCY}, ` +
      `LOCAL_INSTANCES=${INSTANCES}, ` +
      `SIGNER_LATENCY_MS=${SIGNER_LATENCY_MS}, SIGNER_RATE_LIMIT=${SIGNER_RATE_LIMIT}; firm B at ${B_RATE}/s, ` +
      `firm A: ${A_LABEL}, ${SECONDS} s per phase (open loop), warm-up ${WARMUP} appends`,
    '',
    '| Goal | Measured | |',
    '|---|---|---|',
    `| B gets no 429 | ${bRefused} | ${check(goals.noRefusal)} |`,
    `| B's p99 while A bursts ≤ 2 × B's p99 alone | ${fixed(p99With)} / ${fixed(p99Alone)} ms = ${fixed(ratio, 2)} | ${check(goals.p99)} |`,
    LIMITED
      ? `| A limited: 429s, and admitted ≤ burst + rate × A's wall time (${fixed(burst.wallMs / 1000)} s) | ${aAdmitted} admitted ≤ ${aCeiling}, ${count(burst, 429)} × 429 | ${check(goals.aLimited)} |`
      : `| A within its allowance: no 429 | ${count(burst, 429)} × 429 | ${check(goals.aLimited)} |`,
    `| Nothing written for a refused request: A's new records = ${A_RECORDS_PER_ADMITTED ? `A's ${A_ADMITTED}s` : '0'} | ${aRecords} = ${aAdmitted * A_RECORDS_PER_ADMITTED} | ${check(goals.nothingWritten)} |`,
    `| No 5xx | ${errors} | ${check(goals.no5xx)} |`,
    '',
    '| Flow | Requests | p50 ms | p99 ms | 429 | HTTP statuses |',
    '|---|---:|---:|---:|---:|---|',
    row(`B alone (${B_RATE}/s)`, alone),
    row(`B while A bursts (${B_RATE}/s)`, contended),
    row(A_LABEL, burst),
  ].join('\n');
  return { text, ok: Object.values(goals).every(Boolean) };
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const load = loadavg();
  const started = performance.now();
  console.error(
    `Starting the embedded stack (${INSTANCES} instances, limit ${RATE}/s burst ${BURST} concurrency ${CONCURRENCY || 'uncapped'} per firm)...`,
  );
  const stack = await startStack({
    env: {
      LOCAL_INSTANCES: String(INSTANCES),
      SIGNER_LATENCY_MS: String(SIGNER_LATENCY_MS),
      SIGNER_RATE_LIMIT: String(SIGNER_RATE_LIMIT),
      FIRM_WRITE_RATE_PER_S: String(RATE),
      FIRM_WRITE_BURST: String(BURST),
      FIRM_WRITE_CONCURRENCY: String(CONCURRENCY),
    },
  });
  try {
    const result = await measure(stack);
    const { text, ok } = report(result, { startedAt, seconds: (performance.now() - started) / 1000, load });
    console.log(text);
    return ok ? 0 : 1;
  } catch (error) {
    console.error(`bench/rate-limits failed: ${(error as Error).message}\nstack output:\n${stack.logs()}`);
    throw error;
  } finally {
    await stack.stop();
  }
}

process.exitCode = await main();
