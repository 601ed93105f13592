/**
 * bench/soak (issue 32): a long run of mixed reads and writes at half the stack's measured capacity, over HTTP
 * against the embedded stack run like Lambda (LOCAL_INSTANCES instances, a KMS-like signer), watching for what only
 * time shows: 5xx, latency that drifts, memory that grows, transient items that pile up.
 *
 * 1. Capacity: closed-loop mixed load (the soak's own mix) at 8, 16, 32 and 64 concurrent clients for
 *    BENCH_CAPACITY_SECONDS each (stopping once a level adds under 5 %); capacity = the best 2xx answers/s.
 *    BENCH_SOAK_RATE skips this and uses the given rate.
 * 2. Soak: open loop (a fixed arrival rate, each latency counted from the request's scheduled time, so a stall
 *    shows in full) at BENCH_LOAD_FRACTION (0.5) × capacity for BENCH_SOAK_MINUTES (20). The mix: appends
 *    (POST /v1/incidents; a quarter with an Idempotency-Key, and some replays of a key already used) across
 *    BENCH_FIRMS firms, record list and get, a record's evidence bundle, backup-status, the log checkpoint and
 *    inclusion proofs.
 * 3. Every minute: answers by status class, p50/p99 of the requests scheduled in it, the RSS of the stack's own
 *    processes (the server and its instance threads; DynamoDB Local's JVM apart, its heap is not ours), and the
 *    transient items of the firms (intents, outbox entries, leases, write-slot buckets, Idempotency-Key items),
 *    with how many have already run out. At the end, with the load stopped: a full scan of both tables for every
 *    transient item, whoever wrote it.
 *
 * Prints a table per minute and a verdict per goal (0 5xx; p99 of the last 5 minutes ≤ 1.25 × the first 5; the
 * stack's RSS after the warm-up minutes grows ≤ 10 %; transient items bounded), writes the figures to
 * .tmp/bench-soak.json, and exits non-zero when a goal is not met.
 *
 *   npm run bench:soak
 *
 * Environment: BENCH_SOAK_MINUTES (20), BENCH_SOAK_WARMUP_MINUTES (2: the memory baseline is the end of these),
 * BENCH_SOAK_RATE (requests/s; unset: measured), BENCH_LOAD_FRACTION (0.5), BENCH_CAPACITY_SECONDS (20),
 * BENCH_FIRMS (4), BENCH_INSTANCES (8), BENCH_WORKER_INSTANCES (4: LOCAL_WORKER_INSTANCES, the workers on instances
 * of their own as in AWS; 0 runs them on the requests' instances), BENCH_SIGNER_LATENCY_MS (15), BENCH_SIGNER_RATE_LIMIT (300),
 * BENCH_FIRM_WRITE_RATE (1000/s per firm: never binds, but makes the write bucket and its slots exist),
 * BENCH_FIRM_WRITE_CONCURRENCY (64), BENCH_MAX_IN_FLIGHT (2000: beyond it a due request is counted as dropped),
 * BENCH_SOAK_SEED_RECORDS (0: none; N seeds a firm the load never touches with N records, half of them incidents, its log tree built,
 * before the warm-up, so that the tables hold about their end size from the first minute; see seedBallast).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type as osType } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { SLOW_CALL_MS, type DynamoCounts } from '../shared/adapters/local/dynamo-meter.js';
import type { IsolateHeap } from '../shared/adapters/local/instance-messages.js';
import { intEnv } from '../shared/runtime/config.js';
import type { Deps } from '../shared/runtime/deps.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { incidentBody } from './lib/incident-requests.js';
import { cpuSeconds, machineJiffies, percentile, treeCpuSeconds } from './lib/measure.js';
import { treeMemory } from './lib/process-memory.js';
import { readHead } from '../shared/store/ledger-store.js';
import { readLogTree } from '../shared/store/log-store.js';
import {
  createFirm,
  isRunning,
  seedFirm,
  startStack,
  type EmbeddedStack,
  type OnboardedFirm,
} from './lib/stack.js';
import { localMetrics } from '../test/support/local-stack.js';
import { countFirmTransients, scanTransients, type TransientCounts } from './lib/transient-items.js';

const MINUTES = intEnv('BENCH_SOAK_MINUTES', 20);
const WARMUP_MINUTES = Math.max(1, Math.min(intEnv('BENCH_SOAK_WARMUP_MINUTES', 2), MINUTES - 1));
const FIXED_RATE = Number(process.env.BENCH_SOAK_RATE ?? '') || undefined;
const FRACTION = Number(process.env.BENCH_LOAD_FRACTION ?? '') || 0.5;
const CAPACITY_SECONDS = intEnv('BENCH_CAPACITY_SECONDS', 20);
const FIRMS = intEnv('BENCH_FIRMS', 4);
const INSTANCES = intEnv('BENCH_INSTANCES', 8);
const WORKER_INSTANCES = intEnv('BENCH_WORKER_INSTANCES', 4);
const SIGNER_LATENCY_MS = intEnv('BENCH_SIGNER_LATENCY_MS', 15);
const SIGNER_RATE_LIMIT = intEnv('BENCH_SIGNER_RATE_LIMIT', 300);
const FIRM_WRITE_RATE = intEnv('BENCH_FIRM_WRITE_RATE', 1000);
const FIRM_WRITE_CONCURRENCY = intEnv('BENCH_FIRM_WRITE_CONCURRENCY', 64);
const MAX_IN_FLIGHT = intEnv('BENCH_MAX_IN_FLIGHT', 2000);
const SEED_RECORDS = intEnv('BENCH_SOAK_SEED_RECORDS', 0);
/** How long the ballast firm's log tree may take to be built before the bench gives up. */
const BALLAST_TREE_TIMEOUT_MS = 10 * 60_000;
/** The goals' windows: the first and last 5 minutes (fewer in a short run, never overlapping). */
const WINDOW = Math.max(1, Math.min(5, Math.floor(MINUTES / 2)));
/** A proof is asked only for a record seen this long ago: by then a checkpoint covers it. */
const PROOF_AGE_MS = 10_000;
/** Memory is sampled this often; a minute's figure is the mean of its samples. */
const MEMORY_SAMPLE_MS = 5_000;
const MINUTE_MS = 60_000;
/**
 * tsx's loader transpiles through an esbuild service process per thread, started only when its cache is cold
 * (so they come and go between runs): not the service's memory, reported apart.
 */
const TSX_HELPER = /\/esbuild --service/;

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
/** One of the minute's DynamoDB counters per request scheduled in it. */
const perRequest = (m: { scheduled: number; dynamo?: DynamoCounts }, counter: keyof DynamoCounts) =>
  m.dynamo ? fixed(m.dynamo[counter] / m.scheduled, 2) : '–';
const mib = (bytes: number) => fixed(bytes / 2 ** 20);
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const mean = (values: number[]) => (values.length ? sum(values) / values.length : Number.NaN);

// ---------- the mix ----------

type OpName =
  | 'append'
  | 'append-keyed'
  | 'append-replay'
  | 'list'
  | 'get'
  | 'evidence'
  | 'backup-status'
  | 'checkpoint'
  | 'proof';

/** Weights out of 100: 42 % writes (a quarter of them keyed, a few replays), 58 % reads. */
const MIX: [OpName, number][] = [
  ['append', 30],
  ['append-keyed', 10],
  ['append-replay', 2],
  ['list', 18],
  ['get', 12],
  ['evidence', 5],
  ['backup-status', 5],
  ['checkpoint', 8],
  ['proof', 10],
];
const MIX_TOTAL = sum(MIX.map(([, weight]) => weight));

function pickOp(): OpName {
  let roll = Math.random() * MIX_TOTAL;
  for (const [name, weight] of MIX) if ((roll -= weight) < 0) return name;
  return MIX[0]![0];
}

/** What the load knows of a firm: record ids it has seen (with when), and the Idempotency-Keys it has sent. */
interface FirmState {
  firm: OnboardedFirm;
  seen: { id: string; at: number }[];
  keyed: { key: string; body: unknown }[];
}

const SEEN_KEPT = 500;
const KEYED_KEPT = 200;
let appendCounter = 0;
/** Every Idempotency-Key sent in the run, for the transient-item counts. */
const sentKeys: { firmId: string; key: string }[] = [];
const runTag = Math.random().toString(36).slice(2, 8);

/** What one request of the mix learnt beside its status: how long its handler ran on its instance. */
interface Trace {
  /** The stack's `x-local-run-ms` (Lambda's duration: without the proxy and the wait for a free instance). */
  runMs?: number;
}

async function call(firm: FirmState, path: string, init: RequestInit, trace: Trace): Promise<Response> {
  const response = await fetch(`${BASE_URL.value}${path}`, {
    ...init,
    headers: { 'X-Service-Key': firm.firm.apiKey, ...(init.headers as Record<string, string>) },
  });
  const runMs = Number(response.headers.get('x-local-run-ms') ?? Number.NaN);
  if (Number.isFinite(runMs)) trace.runMs = runMs;
  return response;
}

const BASE_URL = { value: '' };

function remember(firm: FirmState, ids: string[]) {
  const at = performance.now();
  const known = new Set(firm.seen.map((s) => s.id));
  for (const id of ids) if (!known.has(id)) firm.seen.push({ id, at });
  if (firm.seen.length > SEEN_KEPT) firm.seen.splice(0, firm.seen.length - SEEN_KEPT);
}

const anyOf = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];

async function postAppend(firm: FirmState, trace: Trace, body: unknown, key?: string): Promise<number> {
  const response = await call(
    firm,
    '/v1/incidents',
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
      body: JSON.stringify(body),
    },
    trace,
  );
  await response.arrayBuffer();
  return response.status;
}

/** Runs one operation of the mix against a firm; returns the answer's status. */
async function runOp(op: OpName, firm: FirmState, trace: Trace): Promise<number> {
  switch (op) {
    case 'append-replay': {
      const previous = anyOf(firm.keyed);
      if (previous) return postAppend(firm, trace, previous.body, previous.key);
      return runOp('append-keyed', firm, trace);
    }
    case 'append':
    case 'append-keyed': {
      const index = appendCounter++;
      const body = { ...incidentBody(index), metadata: { soak: true, index } };
      if (op === 'append') return postAppend(firm, trace, body);
      const key = `soak-${runTag}-${index}`;
      sentKeys.push({ firmId: firm.firm.firm.id, key });
      firm.keyed.push({ key, body });
      if (firm.keyed.length > KEYED_KEPT) firm.keyed.shift();
      return postAppend(firm, trace, body, key);
    }
    case 'list': {
      const response = await call(firm, '/v1/ledger/records?pageSize=25', {}, trace);
      const page = (await response.json()) as { data?: { id: string }[] };
      if (response.status === 200)
        remember(
          firm,
          (page.data ?? []).map((r) => r.id),
        );
      return response.status;
    }
    case 'get':
    case 'evidence':
    case 'proof': {
      const cutoff = performance.now() - (op === 'proof' ? PROOF_AGE_MS : 0);
      const record = anyOf(firm.seen.filter((s) => s.at <= cutoff));
      if (!record) return runOp('list', firm, trace);
      const suffix = op === 'get' ? '' : `/${op}`;
      const response = await call(firm, `/v1/ledger/records/${record.id}${suffix}`, {}, trace);
      await response.arrayBuffer();
      return response.status;
    }
    case 'backup-status':
    case 'checkpoint': {
      const path = op === 'checkpoint' ? '/v1/ledger/log/checkpoint' : '/v1/firm/me/backup-status';
      const response = await call(firm, path, {}, trace);
      await response.arrayBuffer();
      return response.status;
    }
  }
}

/** One request of the mix to a random firm; network failures count as status 0. */
async function oneRequest(firms: FirmState[]): Promise<{ op: OpName; status: number; runMs?: number }> {
  const op = pickOp();
  const firm = anyOf(firms)!;
  const trace: Trace = {};
  try {
    return { op, status: await runOp(op, firm, trace), ...trace };
  } catch {
    return { op, status: 0 };
  }
}

// ---------- capacity (closed loop) ----------

interface CapacityLevel {
  clients: number;
  seconds: number;
  okPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

async function closedLoop(firms: FirmState[], clients: number, seconds: number): Promise<CapacityLevel> {
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const began = performance.now();
        const { status } = await oneRequest(firms);
        latencies.push(performance.now() - began);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const wall = (performance.now() - start) / 1000;
  const ok = sum(
    Object.entries(statuses)
      .filter(([code]) => Number(code) >= 200 && Number(code) < 300)
      .map(([, n]) => n),
  );
  return {
    clients,
    seconds: wall,
    okPerSecond: ok / wall,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    statuses,
  };
}

async function measureCapacity(firms: FirmState[]): Promise<CapacityLevel[]> {
  const levels: CapacityLevel[] = [];
  for (const clients of [8, 16, 32, 64]) {
    console.error(`Capacity: ${clients} closed-loop clients for ${CAPACITY_SECONDS} s...`);
    const level = await closedLoop(firms, clients, CAPACITY_SECONDS);
    console.error(
      `  ${fixed(level.okPerSecond)} 2xx/s, p50 ${fixed(level.p50)} ms, p99 ${fixed(level.p99)} ms`,
    );
    const best = Math.max(0, ...levels.map((l) => l.okPerSecond));
    levels.push(level);
    if (level.okPerSecond < best * 1.05) break;
  }
  return levels;
}

// ---------- the soak (open loop) ----------

interface Minute {
  minute: number;
  scheduled: number;
  /** Answers by status class: 2xx, 3xx, 4xx, 5xx, and `error` for a request that got no answer. */
  classes: Record<string, number>;
  /** Every status, with the operations that got a non-2xx one. */
  statuses: Record<number, number>;
  unexpected: Record<string, number>;
  dropped: number;
  latencies: number[];
  /**
   * The minute's handler run times (x-local-run-ms): against the latencies, whether a slower tail is spent in the
   * handlers (their calls) or around them (the proxy, the wait for a free instance, the bench's own loop).
   */
  runMs: number[];
  /** The minute's latencies by operation (the per-operation p99 table: which one drifts). */
  byOp: Partial<Record<OpName, number[]>>;
  p50: number;
  p99: number;
  /** The machine's 1-minute load average at the minute's end: other load on the shared machine shows here. */
  load: number;
  /** The share of the machine's cores idle waiting on disk I/O during the minute (DynamoDB Local's writes). */
  iowait: number;
  /** CPU seconds the minute took in the stack's processes and in DynamoDB Local: who slows down as data grows. */
  stackCpu: number;
  dynamoCpu: number;
  /**
   * DynamoDB calls the stack (handlers and workers) made in the minute, and the items DynamoDB read for them
   * (GET /__local/metrics, LOCAL_DYNAMO_METRICS on): work per request that grows with the data shows here.
   */
  dynamo?: DynamoCounts;
  stackRss: number;
  stackPids: number;
  dynamoRss: number;
  /** tsx's esbuild helpers (a loader's transpiler, started only on a cold cache; none in Lambda). */
  helperRss: number;
  helperPids: number;
  transients?: TransientCounts;
  transientsMs?: number;
  /** GET /__local/memory at the minute's end: each isolate's heap, what the queue and the pool hold. */
  memory?: StackMemory;
}

/** What the meter counted between two readings. */
function countsSince(before: DynamoCounts, after: DynamoCounts): DynamoCounts {
  const since = { ...after };
  for (const counter of Object.keys(since) as (keyof DynamoCounts)[]) since[counter] -= before[counter];
  return since;
}

/** The stack's DynamoDB meter now; undefined when the stack does not answer or counts nothing. */
async function dynamoCounts(stack: EmbeddedStack): Promise<DynamoCounts | undefined> {
  const metrics = await localMetrics(stack).catch(() => undefined);
  const counts = {
    dynamoReadCalls: metrics?.dynamoReadCalls,
    dynamoItemsRead: metrics?.dynamoItemsRead,
    dynamoWriteCalls: metrics?.dynamoWriteCalls,
    dynamoCallsTimed: metrics?.dynamoCallsTimed,
    dynamoCallMicros: metrics?.dynamoCallMicros,
    dynamoSlowCalls: metrics?.dynamoSlowCalls,
  };
  return Object.values(counts).every((value) => value !== undefined) ? (counts as DynamoCounts) : undefined;
}

/** What GET /__local/memory answers (bin/local.ts), as far as the soak reads it. */
interface StackMemory {
  process: NodeJS.MemoryUsage;
  main: IsolateHeap;
  /** How late the main thread's event loop ran since the last reading (older stacks: absent). */
  mainLoopDelayMs?: { p50: number; p99: number; max: number };
  queue: { waiting: number; inFlight: number; deadLetters: number; deadLettersDropped: number };
  pool?: {
    waiting: { route: number; worker: number };
    busy: number;
    instances: { index: number; heap: IsolateHeap | null }[];
  };
}

/** The heaps of the stack's isolates together (the main thread's and the instances' as last reported). */
function heapsTogether(memory: StackMemory): { used: number; total: number; newSpace: number } {
  const heaps = [memory.main, ...(memory.pool?.instances ?? []).flatMap((i) => (i.heap ? [i.heap] : []))];
  const sum = (pick: (heap: IsolateHeap) => number) => heaps.reduce((total, heap) => total + pick(heap), 0);
  return { used: sum((h) => h.used), total: sum((h) => h.total), newSpace: sum((h) => h.newSpace) };
}

async function stackMemory(baseUrl: string): Promise<StackMemory | undefined> {
  try {
    const response = await fetch(`${baseUrl}/__local/memory`);
    return response.ok ? ((await response.json()) as StackMemory) : undefined;
  } catch {
    return undefined;
  }
}

/** Every soak request's latency by operation, for the per-operation line of the report. */
const opLatencies = new Map<OpName, number[]>();

const classOf = (status: number) => (status === 0 ? 'error' : `${Math.floor(status / 100)}xx`);

function newMinute(minute: number): Minute {
  return {
    minute,
    scheduled: 0,
    classes: {},
    statuses: {},
    unexpected: {},
    dropped: 0,
    latencies: [],
    runMs: [],
    byOp: {},
    p50: Number.NaN,
    p99: Number.NaN,
    load: Number.NaN,
    iowait: Number.NaN,
    stackCpu: Number.NaN,
    dynamoCpu: Number.NaN,
    stackRss: Number.NaN,
    stackPids: 0,
    dynamoRss: Number.NaN,
    helperRss: Number.NaN,
    helperPids: 0,
  };
}

function dynamoPid(stack: EmbeddedStack): number | undefined {
  // Read each time: the stack restarts a DynamoDB Local that died, under a new pid.
  try {
    const pid = Number(readFileSync(join(stack.dataDir, 'dynamodb.pid'), 'utf8'));
    return pid > 0 ? pid : undefined;
  } catch {
    return stack.dynamoPid;
  }
}

async function soak(stack: EmbeddedStack, deps: Deps, firms: FirmState[], rate: number): Promise<Minute[]> {
  const minutes = Array.from({ length: MINUTES }, (_, i) => newMinute(i));
  const memory: { stack: number; pids: number; dynamo: number; helper: number; helperPids: number }[][] =
    minutes.map(() => []);
  const interval = 1000 / rate;
  const start = performance.now();
  const end = start + MINUTES * MINUTE_MS;
  const pending = new Set<Promise<void>>();
  let inFlight = 0;
  let next = 0;
  let stopped = false;

  const sampler = (async () => {
    while (!stopped) {
      const minute = Math.floor((performance.now() - start) / MINUTE_MS);
      const java = dynamoPid(stack);
      const tree = treeMemory(stack.pid, java ? [java] : [], TSX_HELPER);
      memory[minute]?.push({
        stack: tree.rss,
        pids: tree.pids.length,
        dynamo: tree.excludedRss,
        helper: tree.helperRss,
        helperPids: tree.helperPids.length,
      });
      await sleep(MEMORY_SAMPLE_MS);
    }
  })();

  let keysCounted = 0;
  let keysFound = 0;
  let keysExpired = 0;
  const cpuNow = () => {
    const java = dynamoPid(stack);
    return { stack: treeCpuSeconds(stack.pid, [java]), dynamo: cpuSeconds(java), machine: machineJiffies() };
  };
  const counter = (async () => {
    let cpuBefore = cpuNow();
    let dynamoBefore = await dynamoCounts(stack);
    for (let minute = 0; minute < MINUTES; minute++) {
      await sleep(start + (minute + 1) * MINUTE_MS - performance.now());
      const cpuAfter = cpuNow();
      const dynamoAfter = await dynamoCounts(stack);
      minutes[minute]!.stackCpu = cpuAfter.stack - cpuBefore.stack;
      minutes[minute]!.dynamoCpu = cpuAfter.dynamo - cpuBefore.dynamo;
      minutes[minute]!.iowait =
        (cpuAfter.machine.iowait - cpuBefore.machine.iowait) /
        (cpuAfter.machine.total - cpuBefore.machine.total);
      if (dynamoBefore && dynamoAfter) minutes[minute]!.dynamo = countsSince(dynamoBefore, dynamoAfter);
      cpuBefore = cpuAfter;
      dynamoBefore = dynamoAfter;
      const began = performance.now();
      // Only the keys sent since the last count are looked up, so the count's cost does not grow with the run
      // (which would load the last minutes more than the first); the totals add up.
      const fresh = sentKeys.slice(keysCounted);
      keysCounted = sentKeys.length;
      const counts = await countFirmTransients(
        deps,
        firms.map((f) => f.firm.firm.id),
        fresh,
        Date.now(),
      );
      keysFound += counts.idempotencyKeys;
      keysExpired += counts.idempotencyExpired;
      counts.idempotencyKeys = keysFound;
      counts.idempotencyExpired = keysExpired;
      minutes[minute]!.transients = counts;
      minutes[minute]!.transientsMs = performance.now() - began;
      const m = minutes[minute]!;
      m.load = loadavg()[0]!;
      const stackHeap = await stackMemory(stack.baseUrl);
      if (stackHeap) m.memory = stackHeap;
      const heaps = stackHeap && heapsTogether(stackHeap);
      console.error(
        `minute ${minute + 1}/${MINUTES}: ${m.scheduled} scheduled, ${JSON.stringify(m.classes)}, ` +
          `stack RSS ${mib(mean(memory[minute]!.map((s) => s.stack)))} MiB, intents ${counts.intentsPending + counts.intentsFailed}, ` +
          `outbox ${counts.outbox}, idempotency keys ${counts.idempotencyKeys}` +
          (heaps && stackHeap
            ? `, heaps used/total/new ${mib(heaps.used)}/${mib(heaps.total)}/${mib(heaps.newSpace)} MiB, ` +
              `queue ${stackHeap.queue.waiting} waiting ${stackHeap.queue.inFlight} in flight, ` +
              `pool ${stackHeap.pool ? stackHeap.pool.waiting.route + stackHeap.pool.waiting.worker : 0} waiting`
            : ''),
      );
    }
  })();

  while (true) {
    const now = performance.now();
    // Fire every request whose time has come, each timed from its scheduled time.
    while (start + next * interval <= now) {
      const due = start + next * interval;
      if (due >= end) break;
      const minute = minutes[Math.floor((due - start) / MINUTE_MS)]!;
      next++;
      minute.scheduled++;
      if (inFlight >= MAX_IN_FLIGHT) {
        minute.dropped++;
        continue;
      }
      inFlight++;
      const request = oneRequest(firms).then(({ op, status, runMs }) => {
        inFlight--;
        const latency = performance.now() - due;
        minute.latencies.push(latency);
        if (runMs !== undefined) minute.runMs.push(runMs);
        (minute.byOp[op] ??= []).push(latency);
        const perOp = opLatencies.get(op) ?? [];
        perOp.push(latency);
        opLatencies.set(op, perOp);
        const cls = classOf(status);
        minute.classes[cls] = (minute.classes[cls] ?? 0) + 1;
        minute.statuses[status] = (minute.statuses[status] ?? 0) + 1;
        if (cls !== '2xx')
          minute.unexpected[`${op} ${status}`] = (minute.unexpected[`${op} ${status}`] ?? 0) + 1;
        pending.delete(request);
      });
      pending.add(request);
    }
    if (start + next * interval >= end) break;
    await sleep(Math.max(1, Math.min(20, start + next * interval - performance.now())));
  }
  await Promise.all(pending);
  await counter;
  stopped = true;
  await sampler;

  for (const [i, minute] of minutes.entries()) {
    minute.p50 = percentile(minute.latencies, 0.5);
    minute.p99 = percentile(minute.latencies, 0.99);
    const samples = memory[i]!;
    minute.stackRss = mean(samples.map((s) => s.stack));
    minute.stackPids = Math.max(0, ...samples.map((s) => s.pids));
    minute.dynamoRss = mean(samples.map((s) => s.dynamo));
    minute.helperRss = mean(samples.map((s) => s.helper));
    minute.helperPids = Math.max(0, ...samples.map((s) => s.helperPids));
  }
  return minutes;
}

// ---------- report ----------

function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

interface Verdict {
  goal: string;
  measured: string;
  met: boolean;
}

function verdicts(
  minutes: Minute[],
  final: TransientCounts & { scanned: number },
  rate: number,
  firms: number,
): Verdict[] {
  const fivexx = sum(minutes.map((m) => (m.classes['5xx'] ?? 0) + (m.classes.error ?? 0)));
  const dropped = sum(minutes.map((m) => m.dropped));
  const first = minutes.slice(0, WINDOW).flatMap((m) => m.latencies);
  const last = minutes.slice(-WINDOW).flatMap((m) => m.latencies);
  const p99First = percentile(first, 0.99);
  const p99Last = percentile(last, 0.99);
  const baseline = minutes[WARMUP_MINUTES - 1]!.stackRss;
  const peak = Math.max(...minutes.slice(WARMUP_MINUTES).map((m) => m.stackRss));
  const end = minutes.at(-1)!.stackRss;
  const growth = (end - baseline) / baseline;
  // Live transient items a run can hold at once: intents and slots are one per request in flight, leases and
  // buckets one per firm; Idempotency-Key items live 24 h, so within a run every key sent is alive.
  const maxInFlight = Math.ceil((rate * Math.max(1, ...minutes.map((m) => m.p99))) / 1000) + 1;
  const live = final.intentsPending + final.intentsFailed;
  const transientProblems: string[] = [];
  if (final.intentsStale > 0) transientProblems.push(`${final.intentsStale} stale FAILED intents`);
  if (live > maxInFlight) transientProblems.push(`${live} intents after the load stopped`);
  if (final.leases > 2 * firms) transientProblems.push(`${final.leases} leases for ${firms} firms`);
  if (final.buckets > firms) transientProblems.push(`${final.buckets} write buckets for ${firms} firms`);
  if (final.slots > firms * FIRM_WRITE_CONCURRENCY) transientProblems.push(`${final.slots} slots`);
  if (final.idempotencyKeys !== new Set(sentKeys.map((k) => k.key)).size)
    transientProblems.push(`${final.idempotencyKeys} Idempotency-Key items for ${sentKeys.length} keys sent`);
  const maxOutbox = Math.max(...minutes.map((m) => m.transients?.outbox ?? 0));
  const maxIntents = Math.max(
    ...minutes.map((m) => (m.transients?.intentsPending ?? 0) + (m.transients?.intentsFailed ?? 0)),
  );
  return [
    {
      goal: '0 5xx (and no request unanswered)',
      measured: `${fivexx} 5xx or unanswered; ${dropped} requests not sent (over ${MAX_IN_FLIGHT} in flight)`,
      met: fivexx === 0 && dropped === 0,
    },
    {
      goal: `p99 of the last ${WINDOW} min ≤ 1.25 × the first ${WINDOW}`,
      measured: `${fixed(p99Last)} / ${fixed(p99First)} ms = ${fixed(p99Last / p99First, 2)}`,
      met: p99Last <= 1.25 * p99First,
    },
    {
      goal: `stack RSS after ${WARMUP_MINUTES} min of warm-up grows ≤ 10 %`,
      measured: `${mib(baseline)} → ${mib(end)} MiB (${fixed(growth * 100)} %, peak ${mib(peak)} MiB); DynamoDB Local's JVM ${mib(minutes[WARMUP_MINUTES - 1]!.dynamoRss)} → ${mib(minutes.at(-1)!.dynamoRss)} MiB (not ours)`,
      met: growth <= 0.1,
    },
    {
      goal: 'transient items bounded',
      measured:
        `per minute at most ${maxIntents} intents and ${maxOutbox} outbox entries (in flight at ${fixed(rate)}/s: ≤ ${maxInFlight}); ` +
        `at the end (full scan of ${final.scanned} items): ${final.intentsPending} pending + ${final.intentsFailed} failed intents ` +
        `(${final.intentsStale} stale), ${final.outbox} outbox, ${final.leases} leases (${final.leasesRunOut} run out) for ${firms} firms, ` +
        `${final.buckets} write buckets with ${final.slots} slots (${final.slotsHeld} held), ` +
        `${final.idempotencyKeys} Idempotency-Key items for ${new Set(sentKeys.map((k) => k.key)).size} keys sent (${final.idempotencyExpired} past their TTL)` +
        (transientProblems.length ? `; PROBLEMS: ${transientProblems.join('; ')}` : ''),
      met: transientProblems.length === 0,
    },
  ];
}

function report(
  run: { startedAt: Date; load: number[]; seconds: number; ballast: Ballast | undefined },
  capacity: CapacityLevel[],
  rate: number,
  minutes: Minute[],
  results: Verdict[],
): string {
  const cpu = cpus();
  const loads = (values: number[]) => values.map((l) => fixed(l, 2)).join(' ');
  const t = (m: Minute) => m.transients;
  return [
    `Run: ${run.startedAt.toISOString()}, ${fixed(run.seconds, 0)} s in all, code at ${revision()}`,
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} x ${cpu.length}, ${fixed(totalmem() / 2 ** 30)} GiB, ` +
      `${osType()} ${release()}, Node ${process.version}, load average ${loads(run.load)} at start, ${loads(loadavg())} at end`,
    `Settings: LOCAL_INSTANCES=${INSTANCES}, LOCAL_WORKER_INSTANCES=${WORKER_INSTANCES}, SIGNER_LATENCY_MS=${SIGNER_LATENCY_MS}, SIGNER_RATE_LIMIT=${SIGNER_RATE_LIMIT}, ` +
      `FIRM_WRITE_RATE_PER_S=${FIRM_WRITE_RATE}, FIRM_WRITE_CONCURRENCY=${FIRM_WRITE_CONCURRENCY}, ${FIRMS} firms, ` +
      `${MINUTES} min at ${fixed(rate)} requests/s (${FIXED_RATE ? 'BENCH_SOAK_RATE' : `${FRACTION} × capacity`}), ` +
      `mix ${MIX.map(([name, weight]) => `${name} ${weight}`).join(', ')}`,
    run.ballast
      ? `Ballast (BENCH_SOAK_SEED_RECORDS): a firm of ${run.ballast.records} records the load never touches, ` +
        `seeded in ${fixed(run.ballast.seedSeconds)} s, its log tree built in ${fixed(run.ballast.treeSeconds)} s, before the warm-up`
      : 'Ballast: none (the tables grow from empty)',
    '',
    ...(capacity.length
      ? [
          '| Capacity: clients | 2xx/s | p50 ms | p99 ms | statuses |',
          '|---:|---:|---:|---:|---|',
          ...capacity.map(
            (l) =>
              `| ${l.clients} | ${fixed(l.okPerSecond)} | ${fixed(l.p50)} | ${fixed(l.p99)} | ${JSON.stringify(l.statuses)} |`,
          ),
          '',
        ]
      : []),
    '| Goal | Measured | |',
    '|---|---|---|',
    ...results.map((r) => `| ${r.goal} | ${r.measured} | ${r.met ? 'met' : '**not met**'} |`),
    '',
    '| Min | Sent | 2xx | 4xx | 5xx | No answer | Not sent | p50 ms | p99 ms | Stack RSS MiB (pids) | esbuild (tsx) RSS MiB (pids) | JVM RSS MiB | Intents | Outbox | Leases (run out) | Slots (held) | Idem. keys (expired) | Count ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...minutes.map(
      (m) =>
        `| ${m.minute + 1} | ${m.scheduled} | ${m.classes['2xx'] ?? 0} | ${m.classes['4xx'] ?? 0} | ${m.classes['5xx'] ?? 0} | ` +
        `${m.classes.error ?? 0} | ${m.dropped} | ${fixed(m.p50)} | ${fixed(m.p99)} | ${mib(m.stackRss)} (${m.stackPids}) | ${mib(m.helperRss)} (${m.helperPids}) | ${mib(m.dynamoRss)} | ` +
        `${(t(m)?.intentsPending ?? 0) + (t(m)?.intentsFailed ?? 0)} | ${t(m)?.outbox ?? '–'} | ${t(m)?.leases ?? '–'} (${t(m)?.leasesRunOut ?? '–'}) | ` +
        `${t(m)?.slots ?? '–'} (${t(m)?.slotsHeld ?? '–'}) | ${t(m)?.idempotencyKeys ?? '–'} (${t(m)?.idempotencyExpired ?? '–'}) | ${fixed(m.transientsMs ?? Number.NaN, 0)} |`,
    ),
    '',
    'Per operation over the soak (count, p50 / p99 ms from the scheduled time): ' +
      [...opLatencies]
        .map(([op, l]) => `${op} ${l.length}, ${fixed(percentile(l, 0.5))} / ${fixed(percentile(l, 0.99))}`)
        .join('; '),
    '',
    'p99 ms by operation and minute; CPU ms per request the minute took in the stack and in DynamoDB Local; ' +
      "the stack's DynamoDB read calls, items read and write calls per request (handlers and workers); " +
      "the machine's load average at the minute's end and its cores' share in I/O wait during the minute:",
    '',
    `| Min | ${[...opLatencies.keys()].join(' | ')} | stack CPU ms / req | DynamoDB Local CPU ms / req | reads / req | items read / req | writes / req | load | iowait |`,
    `|---:|${[...opLatencies.keys()].map(() => '---:').join('|')}|---:|---:|---:|---:|---:|---:|---:|`,
    ...minutes.map(
      (m) =>
        `| ${m.minute + 1} | ${[...opLatencies.keys()].map((op) => fixed(percentile(m.byOp[op] ?? [], 0.99), 0)).join(' | ')} | ` +
        `${fixed((1000 * m.stackCpu) / m.scheduled)} | ${fixed((1000 * m.dynamoCpu) / m.scheduled)} | ` +
        `${perRequest(m, 'dynamoReadCalls')} | ${perRequest(m, 'dynamoItemsRead')} | ${perRequest(m, 'dynamoWriteCalls')} | ${fixed(m.load, 2)} | ${fixed(100 * m.iowait)} % |`,
    ),
    '',
    'Where the tail is spent, by minute: the p50 and p99 of every request (from its scheduled time) against the ' +
      "p50 and p99 of its handler's run on its instance (x-local-run-ms); the stack's DynamoDB calls' mean time " +
      `and how many took over ${SLOW_CALL_MS} ms; how late the main thread's event loop ran (p99, max):`,
    '',
    '| Min | p50 ms | p99 ms | run p50 ms | run p99 ms | DynamoDB ms / call | calls > 100 ms | main loop p99 ms | main loop max ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...minutes.map((m) => {
      const d = m.dynamo;
      const loop = m.memory?.mainLoopDelayMs;
      return (
        `| ${m.minute + 1} | ${fixed(m.p50)} | ${fixed(m.p99)} | ${fixed(percentile(m.runMs, 0.5))} | ${fixed(percentile(m.runMs, 0.99))} | ` +
        `${d?.dynamoCallsTimed ? fixed(d.dynamoCallMicros / d.dynamoCallsTimed / 1000, 2) : '–'} | ${d?.dynamoSlowCalls ?? '–'} | ` +
        `${fixed(loop?.p99 ?? Number.NaN)} | ${fixed(loop?.max ?? Number.NaN)} |`
      );
    }),
    '',
    ...minutes
      .filter((m) => Object.keys(m.unexpected).length > 0)
      .map((m) => `Minute ${m.minute + 1}, answers other than 2xx: ${JSON.stringify(m.unexpected)}`),
  ].join('\n');
}

// ---------- main ----------

/**
 * A firm the load never touches, seeded with SEED_RECORDS records (ledgerctl seed) and waited for until the log
 * has integrated them all (the log-repair sweep finds a ledger without a tree). DynamoDB Local's CPU per request
 * grows as its tables grow (measured: docs/benchmarks.md, the soak), DynamoDB's does not; with the tables at
 * about their end size from the first minute, the p99 ratio measures what time does to the service rather than
 * what table size does to the emulator.
 */
interface Ballast {
  firmId: string;
  records: number;
  seedSeconds: number;
  treeSeconds: number;
}

async function seedBallast(stack: EmbeddedStack, deps: Deps): Promise<Ballast> {
  console.error(`Seeding a ballast firm with ${SEED_RECORDS} records...`);
  const started = performance.now();
  // Half of them incidents, so that the main table grows too (an incident item each), as the soak's appends do.
  const { firmId } = await seedFirm(stack, {
    name: 'Soak ballast',
    records: SEED_RECORDS,
    incidents: Math.floor(SEED_RECORDS / 2),
  });
  const seeded = performance.now();
  const records = (await readHead(deps, firmId)).sequenceNumber;
  for (;;) {
    const tree = await readLogTree(deps, firmId);
    if ((tree?.size ?? 0) >= records) break;
    if (performance.now() - seeded > BALLAST_TREE_TIMEOUT_MS)
      throw new Error(`The ballast firm's log tree reached ${tree?.size ?? 0} of ${records} records in time`);
    await sleep(1000);
  }
  const ballast: Ballast = {
    firmId,
    records,
    seedSeconds: (seeded - started) / 1000,
    treeSeconds: (performance.now() - seeded) / 1000,
  };
  console.error(
    `Ballast: ${records} records seeded in ${fixed(ballast.seedSeconds)} s, its tree built in ${fixed(ballast.treeSeconds)} s`,
  );
  return ballast;
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const load = loadavg();
  const started = performance.now();
  console.error(`Starting the embedded stack (${INSTANCES} instances)...`);
  const stack = await startStack({
    env: {
      LOCAL_INSTANCES: String(INSTANCES),
      // The workers (log checkpoint runs waiting out their interval among them) on instances of their own, as in
      // AWS, where a worker never takes a request's environment (as bench/append and bench/log run them).
      LOCAL_WORKER_INSTANCES: String(WORKER_INSTANCES),
      SIGNER_LATENCY_MS: String(SIGNER_LATENCY_MS),
      SIGNER_RATE_LIMIT: String(SIGNER_RATE_LIMIT),
      FIRM_WRITE_RATE_PER_S: String(FIRM_WRITE_RATE),
      FIRM_WRITE_CONCURRENCY: String(FIRM_WRITE_CONCURRENCY),
      LOCAL_DYNAMO_METRICS: 'true',
    },
  });
  BASE_URL.value = stack.baseUrl;
  const deps = createLocalDeps(stack);
  try {
    const ballast = SEED_RECORDS > 0 ? await seedBallast(stack, deps) : undefined;
    const firms: FirmState[] = [];
    for (let i = 0; i < FIRMS; i++)
      firms.push({ firm: await createFirm(stack, { name: `Soak Advisers ${i}` }), seen: [], keyed: [] });
    console.error('Warming up: 30 s of closed-loop load at 8 clients...');
    await closedLoop(firms, 8, 30);
    const capacity = FIXED_RATE ? [] : await measureCapacity(firms);
    const rate = FIXED_RATE ?? FRACTION * Math.max(...capacity.map((l) => l.okPerSecond));
    console.error(`Soak: ${MINUTES} min at ${fixed(rate)} requests/s (open loop)...`);
    const minutes = await soak(stack, deps, firms, rate);
    console.error('Scanning both tables for transient items...');
    const final = await scanTransients(deps, Date.now());
    // The full scan counts every firm's items: the ballast firm's leases (its seed's and its log's) too.
    const results = verdicts(minutes, final, rate, FIRMS + (ballast ? 1 : 0));
    const seconds = (performance.now() - started) / 1000;
    console.log(report({ startedAt, load, seconds, ballast }, capacity, rate, minutes, results));
    mkdirSync('.tmp', { recursive: true });
    writeFileSync(
      '.tmp/bench-soak.json',
      JSON.stringify(
        {
          startedAt,
          revision: revision(),
          ballast,
          settings: {
            MINUTES,
            WARMUP_MINUTES,
            WINDOW,
            FIRMS,
            INSTANCES,
            WORKER_INSTANCES,
            SIGNER_LATENCY_MS,
            SIGNER_RATE_LIMIT,
            FIRM_WRITE_RATE,
            FIRM_WRITE_CONCURRENCY,
            MIX,
          },
          capacity,
          rate,
          minutes: minutes.map(({ latencies, byOp, runMs, ...minute }) => ({
            runP50: percentile(runMs, 0.5),
            runP99: percentile(runMs, 0.99),
            ...minute,
            requests: latencies.length,
            p99ByOp: Object.fromEntries(Object.entries(byOp).map(([op, l]) => [op, percentile(l, 0.99)])),
          })),
          operations: Object.fromEntries(
            [...opLatencies].map(([op, l]) => [
              op,
              { count: l.length, p50: percentile(l, 0.5), p99: percentile(l, 0.99) },
            ]),
          ),
          final,
          verdicts: results,
        },
        null,
        2,
      ),
    );
    console.error('Figures written to .tmp/bench-soak.json');
    return results.every((r) => r.met) ? 0 : 1;
  } catch (error) {
    const alive = (pid: number | undefined) => (pid && isRunning(pid) ? 'running' : 'not running');
    console.error(
      `bench/soak failed: ${(error as Error).message}\n` +
        `stack (pid ${stack.pid}) ${alive(stack.pid)}, DynamoDB Local (pid ${dynamoPid(stack)}) ${alive(dynamoPid(stack))}\n` +
        `stack output:\n${stack.logs().slice(-5000)}`,
    );
    throw error;
  } finally {
    await stack.stop();
  }
}

process.exitCode = await main();
