/**
 * bench/log (issue 31): the cost and speed of the verifiable log, in ONE run, over HTTP against the embedded stack
 * (LOCAL_INSTANCES Lambda-like instances, a KMS-like signer of SIGNER_LATENCY_MS per Sign):
 *
 * 1. Appends/s at 32 writers (POST /v1/incidents, one firm) with checkpoints and witnessing ON (a stack with
 *    CHECKPOINT_INTERVAL_MS, two of our witnesses, bin/witness.ts, registered through POST /v1/firm/me/witnesses)
 *    against OFF (a second stack, CHECKPOINT_INTERVAL_MS=0), in alternating rounds (ON first, then OFF first, ...)
 *    so that the drift of a shared, loaded machine falls on both sides. Both stacks run throughout; both are
 *    polled for their checkpoint at the same cadence, so the poll's load is the same on both sides.
 * 2. Commit → checkpoint latency of each ON append: from its 201 to the first poll (every BENCH_POLL_MS, with the
 *    firm's own auditor key: a monitor's credential, not the writers') of GET /v1/ledger/log/checkpoint
 *    that shows a checkpoint covering its record (its sequence number, found by incidentId in the records), both
 *    to the first log-signed one and to the first carrying both witnesses' cosignatures.
 * 3. + 4. On the OFF stack's data (checkpoints off, so no tree exists): `ledgerctl seed --create` a small and a
 *    large firm (timed), then restart that data with checkpoints on: the repair sweep (LOG_REPAIR_INTERVAL_SECONDS)
 *    finds the ledgers without a tree and the log-checkpoint worker builds them in bounded steps; the build's
 *    records/s from the restarted stack's readiness to the checkpoint of the full size (LOGTREE polled straight
 *    from DynamoDB Local on the side). Then, once DynamoDB Local is quiet (the restarted stack's scheduled work, such
 *    as the backup reconciliation of the 100,000 records, is over: see quiesce), proof (GET
 *    /v1/ledger/records/{id}/proof, random records) and
 *    consistency (GET /v1/ledger/log/consistency, random pairs) latency on the large and the small firm,
 *    requests alternating between the two.
 *
 * Prints markdown for docs/benchmarks.md; exits non-zero on a 5xx, a wrong answer or a missed checkpoint.
 *
 *   npm run bench:log
 *
 * Environment: BENCH_APPENDS (400 per round and side), BENCH_ROUNDS (3 pairs of rounds), BENCH_WRITERS (32),
 * BENCH_INSTANCES (8), BENCH_WORKER_INSTANCES (4: LOCAL_WORKER_INSTANCES), BENCH_SIGNER_LATENCY_MS (15), BENCH_SIGNER_RATE_LIMIT (300: does not bind),
 * BENCH_CHECKPOINT_INTERVAL_MS (1000), BENCH_WITNESSES (2), BENCH_WARMUP (600 appends per stack, at BENCH_WRITERS),
 * BENCH_POLL_MS (50), BENCH_SETTLE_MS (3000: the pause before each round), BENCH_LARGE_RECORDS (100000), BENCH_SMALL_RECORDS (1000), BENCH_PROOFS (200 per kind and
 * size), BENCH_LOG_REPAIR_INTERVAL_SECONDS (5), BENCH_KEEP_DATA (false: the seeded data directory is removed).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { intEnv, operatorBudgets } from '../shared/runtime/config.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { queryRecordRange, readHead } from '../shared/store/ledger-store.js';
import { readLogTree } from '../shared/store/log-store.js';
import { ledgerctl, localMetrics } from '../test/support/local-stack.js';
import { incidentBody, postIncidentForId } from './lib/incident-requests.js';
import { cpuSeconds, percentile, runLoops, treeCpuSeconds } from './lib/measure.js';
import { createFirm, seedFirm, startStack, type EmbeddedStack, type OnboardedFirm } from './lib/stack.js';
import { startWitness, type BenchWitness } from './lib/witness.js';

const APPENDS = intEnv('BENCH_APPENDS', 400);
const ROUNDS = intEnv('BENCH_ROUNDS', 3);
const WRITERS = intEnv('BENCH_WRITERS', 32);
const INSTANCES = intEnv('BENCH_INSTANCES', 8);
const WORKER_INSTANCES = intEnv('BENCH_WORKER_INSTANCES', 4);
const SIGNER_LATENCY_MS = intEnv('BENCH_SIGNER_LATENCY_MS', 15);
const SIGNER_RATE_LIMIT = intEnv('BENCH_SIGNER_RATE_LIMIT', 300);
const INTERVAL_MS = intEnv('BENCH_CHECKPOINT_INTERVAL_MS', 1000);
const WITNESSES = intEnv('BENCH_WITNESSES', 2);
const WARMUP = intEnv('BENCH_WARMUP', 600);
const POLL_MS = intEnv('BENCH_POLL_MS', 50);
const SETTLE_MS = intEnv('BENCH_SETTLE_MS', 3_000);
const LARGE = intEnv('BENCH_LARGE_RECORDS', 100_000);
const SMALL = intEnv('BENCH_SMALL_RECORDS', 1_000);
const PROOFS = intEnv('BENCH_PROOFS', 200);
const REPAIR_SECONDS = intEnv('BENCH_LOG_REPAIR_INTERVAL_SECONDS', 5);
const LAST_SEQUENCE = 999_999_999_999;
const KEEP_DATA = process.env.BENCH_KEEP_DATA === 'true';
const QUIET_WINDOW_MS = 3_000;
const QUIET_MAX_MS = 300_000;
/** How long a build or a checkpoint may take before the bench gives up on it. */
const BUILD_TIMEOUT_MS = 30 * 60_000;
const COVER_TIMEOUT_MS = 30_000;

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
/**
 * The bench's own reads of the stack's DynamoDB Local (records, heads, LOGTREE), with an operator's budgets: a
 * restarted stack's start-up work can hold DynamoDB Local past a request's 6 s, and the bench only observes.
 */
const sideDeps = (stack: EmbeddedStack) => createLocalDeps({ ...stack, budgets: operatorBudgets() });

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));
const problems: string[] = [];
const loads: number[] = [];

/**
 * Where the CPU goes during a round: each stack's node processes (its Lambda-like instances) and its DynamoDB
 * Local apart, the witnesses, the bench itself. On 2 cores every process shares the same CPU, so a side's cost
 * shows up as CPU the other processes did not get.
 */
const cpuProbes: { label: string; read: () => number }[] = [];
const readCpu = () => cpuProbes.map((probe) => probe.read());

function stackEnv(intervalMs: number): Record<string, string> {
  return {
    LOCAL_INSTANCES: String(INSTANCES),
    // The workers on instances of their own, as in AWS, where a worker never takes a request's environment.
    LOCAL_WORKER_INSTANCES: String(WORKER_INSTANCES),
    SIGNER_LATENCY_MS: String(SIGNER_LATENCY_MS),
    SIGNER_RATE_LIMIT: String(SIGNER_RATE_LIMIT),
    CHECKPOINT_INTERVAL_MS: String(intervalMs),
    LOG_REPAIR_INTERVAL_SECONDS: String(REPAIR_SECONDS),
    // DynamoDB calls and worker invocations counted, per round (where the log's cost goes).
    LOCAL_DYNAMO_METRICS: 'true',
  };
}

interface StackCounts {
  signCalls: number;
  dynamoReadCalls: number;
  dynamoWriteCalls: number;
  workerInvocations: Record<string, number>;
}

async function stackCounts(stack: EmbeddedStack): Promise<StackCounts> {
  return (await localMetrics(stack)) as StackCounts;
}

/** What a stack did during a round: its counters' growth. */
function countsDuring(before: StackCounts, after: StackCounts): StackCounts {
  const invocations: Record<string, number> = {};
  for (const [name, n] of Object.entries(after.workerInvocations))
    if (n - (before.workerInvocations[name] ?? 0) > 0)
      invocations[name] = n - (before.workerInvocations[name] ?? 0);
  return {
    signCalls: after.signCalls - before.signCalls,
    dynamoReadCalls: after.dynamoReadCalls - before.dynamoReadCalls,
    dynamoWriteCalls: after.dynamoWriteCalls - before.dynamoWriteCalls,
    workerInvocations: invocations,
  };
}

// ---------- checkpoints as a client sees them ----------

interface SeenCheckpoint {
  size: number;
  /** Cosignature lines of witnesses (signature lines not named by the log's origin). */
  cosignatures: number;
  at: number;
}

/** The tree size and the witness cosignatures of a served checkpoint (a C2SP signed note). */
function parseCheckpoint(note: string): { size: number; cosignatures: number } {
  const [body, signatures = ''] = note.split('\n\n');
  const [origin, size] = body!.split('\n');
  const cosignatures = signatures
    .split('\n')
    .filter((line) => line.startsWith('— ') && line.split(' ')[1] !== origin).length;
  return { size: Number(size), cosignatures };
}

async function getCheckpoint(stack: EmbeddedStack, apiKey: string) {
  const response = await fetch(`${stack.baseUrl}/v1/ledger/log/checkpoint`, {
    headers: { 'X-Service-Key': apiKey },
  });
  const text = await response.text();
  return { status: response.status, checkpoint: response.status === 200 ? parseCheckpoint(text) : undefined };
}

/** Polls a firm's checkpoint every POLL_MS and records each new (size, cosignatures) seen, with when. */
function pollCheckpoints(stack: EmbeddedStack, apiKey: string) {
  const seen: SeenCheckpoint[] = [];
  const statuses: Record<number, number> = {};
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const { status, checkpoint } = await getCheckpoint(stack, apiKey);
      statuses[status] = (statuses[status] ?? 0) + 1;
      const last = seen.at(-1);
      if (checkpoint && (last?.size !== checkpoint.size || last.cosignatures !== checkpoint.cosignatures))
        seen.push({ ...checkpoint, at: performance.now() });
      await sleep(Math.max(0, POLL_MS - (performance.now() - started)));
    }
  })();
  return {
    seen,
    statuses,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

// ---------- 1 and 2: appends with the log on and off ----------

interface Round {
  side: 'on' | 'off';
  committed: number;
  appendsPerSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  signs: number;
  /** The round's stack: its DynamoDB calls and worker invocations during the round. */
  counts: StackCounts;
  load: number;
  /** incidentId → when its 201 arrived. */
  acknowledged: Map<string, number>;
  /** CPU seconds each of cpuProbes used during the round. */
  cpu: number[];
  /** CPU seconds each of cpuProbes used in the settling pause before the round. */
  pause?: number[];
}

async function appendRound(stack: EmbeddedStack, firm: OnboardedFirm, side: 'on' | 'off'): Promise<Round> {
  const statuses: Record<number, number> = {};
  const acknowledged = new Map<string, number>();
  const countsBefore = await stackCounts(stack);
  const cpuBefore = readCpu();
  const run = await runLoops(APPENDS, WRITERS, async (index) => {
    const { status, incidentId } = await postIncidentForId(stack.baseUrl, firm.apiKey, incidentBody(index));
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (incidentId) acknowledged.set(incidentId, performance.now());
  });
  const cpuAfter = readCpu();
  const counts = countsDuring(countsBefore, await stackCounts(stack));
  const committed = statuses[201] ?? 0;
  const load = loadavg()[0]!;
  loads.push(load);
  return {
    side,
    committed,
    appendsPerSecond: committed / (run.wallMs / 1000),
    p50: percentile(run.latencies, 0.5),
    p99: percentile(run.latencies, 0.99),
    statuses,
    signs: counts.signCalls,
    counts,
    load,
    acknowledged,
    cpu: cpuAfter.map((after, i) => after - cpuBefore[i]!),
  };
}

/** The firm admin's bearer token (ledgerctl token), for the admin-only calls the bench makes. */
async function adminToken(stack: EmbeddedStack, firm: OnboardedFirm): Promise<string> {
  const token = await ledgerctl(stack.dataDir, [
    'token',
    '--firm',
    firm.firm.id,
    '--email',
    firm.admin.email,
  ]);
  const bearer = (token.json as { token?: string } | null)?.token;
  if (!bearer) throw new Error(`ledgerctl token: ${token.stderr}`);
  return bearer;
}

/**
 * A read-only auditor key of the firm, for the checkpoint poll: a monitor or a witness operator polls with its own
 * credential. With the writers' key the poll would wait in their lane of the embedded stack's instance pool
 * (shared/adapters/local/invocation-lane.ts) behind 32 queued appends, and every latency would carry that wait.
 */
async function auditorKey(stack: EmbeddedStack, firm: OnboardedFirm): Promise<string> {
  const created = await fetch(`${stack.baseUrl}/v1/firm/me/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminToken(stack, firm)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench checkpoint poll', scope: 'auditor' }),
  });
  if (created.status !== 201)
    throw new Error(`POST /v1/firm/me/api-keys: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { key: string }).key;
}

async function registerWitnesses(stack: EmbeddedStack, firm: OnboardedFirm): Promise<BenchWitness[]> {
  const response = await fetch(`${stack.baseUrl}/v1/ledger/log/vkeys`, {
    headers: { 'X-Service-Key': firm.apiKey },
  });
  const vkeys = (await response.text()).split('\n').filter(Boolean);
  if (response.status !== 200 || vkeys.length === 0)
    throw new Error(`GET /v1/ledger/log/vkeys: ${response.status} ${vkeys.join(' ')}`);
  const witnesses = await Promise.all(
    Array.from({ length: WITNESSES }, (_, i) => startWitness(`bench.witness.example/w${i + 1}`, vkeys)),
  );
  const bearer = await adminToken(stack, firm);
  for (const witness of witnesses) {
    const created = await fetch(`${stack.baseUrl}/v1/firm/me/witnesses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ vkey: witness.vkey, url: witness.url }),
    });
    if (created.status !== 201)
      throw new Error(`POST /v1/firm/me/witnesses: ${created.status} ${await created.text()}`);
  }
  return witnesses;
}

/** incidentId → sequence number of its INCIDENT_LOGGED record. */
async function sequenceOf(stack: EmbeddedStack, firmId: string): Promise<Map<string, number>> {
  const deps = sideDeps(stack);
  const records = await queryRecordRange(deps, firmId, 1, LAST_SEQUENCE, 'asc');
  const map = new Map<string, number>();
  for (const record of records) {
    const incidentId = (record.documentMetadata as { incidentId?: unknown } | undefined)?.incidentId;
    if (typeof incidentId === 'string') map.set(incidentId, record.sequenceNumber);
  }
  return map;
}

interface CoverLatency {
  toCheckpoint: number[];
  toCosigned: number[];
  uncovered: number;
  uncosigned: number;
}

/** From each acknowledged append to the first seen checkpoint covering it (and the first cosigned one). */
function coverLatencies(
  rounds: Round[],
  sequences: Map<string, number>,
  seen: SeenCheckpoint[],
  cosignaturesNeeded: number,
): CoverLatency {
  const result: CoverLatency = { toCheckpoint: [], toCosigned: [], uncovered: 0, uncosigned: 0 };
  for (const round of rounds)
    for (const [incidentId, at] of round.acknowledged) {
      const sequence = sequences.get(incidentId);
      if (sequence === undefined) {
        problems.push(`no record for acknowledged incident ${incidentId}`);
        continue;
      }
      const first = seen.find((c) => c.size >= sequence);
      const cosigned = seen.find((c) => c.size >= sequence && c.cosignatures >= cosignaturesNeeded);
      if (first) result.toCheckpoint.push(Math.max(0, first.at - at));
      else result.uncovered++;
      if (cosigned) result.toCosigned.push(Math.max(0, cosigned.at - at));
      else result.uncosigned++;
    }
  return result;
}

// ---------- 3 and 4: seeds, the one-time build, proofs ----------

interface Seeded {
  label: string;
  firmId: string;
  apiKey: string;
  head: number;
  seedSeconds: number;
  seedItemsPerSecond: number;
}

async function seed(stack: EmbeddedStack, records: number, label: string): Promise<Seeded> {
  console.error(`Seeding ${records} records (${label})...`);
  const started = performance.now();
  const summary = await seedFirm(stack, { name: `Bench Log ${label}`, records });
  const seedSeconds = (performance.now() - started) / 1000;
  const head = (await readHead(sideDeps(stack), summary.firmId)).sequenceNumber;
  console.error(`seeded ${label}: ${head} records in ${fixed(seedSeconds)} s`);
  return {
    label,
    firmId: summary.firmId,
    apiKey: summary.created.apiKey,
    head,
    seedSeconds,
    seedItemsPerSecond: summary.itemsPerSecond,
  };
}

interface Build {
  firm: Seeded;
  /** From the stack's readiness: the tree's first growth, the full tree (LOGTREE), the checkpoint of the full size. */
  firstGrowthMs: number;
  treeMs: number;
  checkpointMs: number;
}

/** Waits until each firm's tree and checkpoint reach its head; times measured from `since`. */
async function watchBuilds(stack: EmbeddedStack, firms: Seeded[], since: number): Promise<Build[]> {
  const deps = sideDeps(stack);
  const builds = firms.map((firm) => ({
    firm,
    firstGrowthMs: Number.NaN,
    treeMs: Number.NaN,
    checkpointMs: Number.NaN,
  }));
  while (builds.some((b) => Number.isNaN(b.checkpointMs))) {
    if (performance.now() - since > BUILD_TIMEOUT_MS) {
      problems.push(`tree build not done after ${BUILD_TIMEOUT_MS / 60_000} min`);
      break;
    }
    for (const build of builds) {
      if (!Number.isNaN(build.checkpointMs)) continue;
      const now = performance.now() - since;
      const tree = await readLogTree(deps, build.firm.firmId);
      if ((tree?.size ?? 0) > 0 && Number.isNaN(build.firstGrowthMs)) build.firstGrowthMs = now;
      if ((tree?.size ?? 0) >= build.firm.head && Number.isNaN(build.treeMs)) build.treeMs = now;
      const { checkpoint } = await getCheckpoint(stack, build.firm.apiKey);
      if ((checkpoint?.size ?? 0) >= build.firm.head) {
        // A tree and its checkpoint may both land between two polls: then they count as reached together.
        build.checkpointMs = performance.now() - since;
        if (Number.isNaN(build.firstGrowthMs)) build.firstGrowthMs = build.checkpointMs;
        if (Number.isNaN(build.treeMs)) build.treeMs = build.checkpointMs;
      }
    }
    await sleep(200);
  }
  return builds;
}

interface Latency {
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

/** Proof and consistency requests, alternating between the firms, PROOFS of each kind per firm after a warm-up. */
/**
 * Waits (at most QUIET_MAX_MS) until DynamoDB Local has used under a fifth of a core for QUIET_WINDOW_MS; answers the
 * wait. A restarted stack starts its scheduled workers at once, and the day's backup reconciliation of a
 * 100,000-record firm keeps DynamoDB Local's JVM busy on this 2-core machine for a minute or more: proofs measured
 * meanwhile show its pauses (seconds), not the proofs' cost. In AWS that work runs in its own functions against a
 * table that does not share a CPU with the queries.
 */
async function quiesce(stack: EmbeddedStack): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < QUIET_MAX_MS) {
    const before = cpuSeconds(stack.dynamoPid);
    await sleep(QUIET_WINDOW_MS);
    if ((cpuSeconds(stack.dynamoPid) - before) * 1000 < 0.2 * QUIET_WINDOW_MS) break;
  }
  return performance.now() - started;
}

async function measureProofs(stack: EmbeddedStack, firms: Seeded[]) {
  const deps = sideDeps(stack);
  const random = (max: number) => 1 + Math.floor(Math.random() * max);
  const plans = await Promise.all(
    firms.map(async (firm) => {
      const ids: string[] = [];
      for (let i = 0; i < PROOFS + 5; i++) {
        const sequence = random(firm.head);
        const [record] = await queryRecordRange(deps, firm.firmId, sequence, sequence, 'asc');
        if (!record) throw new Error(`${firm.label}: no record ${sequence}`);
        ids.push(record.id);
      }
      const pairs = Array.from({ length: PROOFS + 5 }, () => {
        const [a, b] = [random(firm.head), random(firm.head)];
        return [Math.min(a, b), Math.max(a, b)] as const;
      });
      return { firm, ids, pairs };
    }),
  );
  const times = firms.map(() => ({ proof: [] as number[], consistency: [] as number[] }));
  const statuses = firms.map(() => ({
    proof: {} as Record<number, number>,
    consistency: {} as Record<number, number>,
  }));
  for (let i = 0; i < PROOFS + 5; i++) {
    for (const [f, plan] of plans.entries()) {
      for (const kind of ['proof', 'consistency'] as const) {
        const path =
          kind === 'proof'
            ? `/v1/ledger/records/${plan.ids[i]}/proof`
            : `/v1/ledger/log/consistency?from=${plan.pairs[i]![0]}&to=${plan.pairs[i]![1]}`;
        const started = performance.now();
        const response = await fetch(`${stack.baseUrl}${path}`, {
          headers: { 'X-Service-Key': plan.firm.apiKey },
        });
        const text = await response.text();
        const elapsed = performance.now() - started;
        statuses[f]![kind][response.status] = (statuses[f]![kind][response.status] ?? 0) + 1;
        if (response.status !== 200)
          problems.push(`${plan.firm.label} ${path}: ${response.status} ${text.slice(0, 120)}`);
        if (kind === 'proof' && response.status === 200 && !text.startsWith('c2sp.org/tlog-proof@v1\n'))
          problems.push(`${plan.firm.label} ${path}: not a tlog-proof`);
        if (i >= 5) times[f]![kind].push(elapsed);
      }
    }
  }
  return firms.map((firm, f) => ({
    firm,
    proof: {
      p50: percentile(times[f]!.proof, 0.5),
      p99: percentile(times[f]!.proof, 0.99),
      statuses: statuses[f]!.proof,
    },
    consistency: {
      p50: percentile(times[f]!.consistency, 0.5),
      p99: percentile(times[f]!.consistency, 0.99),
      statuses: statuses[f]!.consistency,
    } satisfies Latency,
  }));
}

// ---------- the run ----------

function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

const statusText = (s: Record<number, number>) =>
  Object.entries(s)
    .map(([code, n]) => `${n} × ${code}`)
    .join(', ');
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const check = (ok: boolean) => (ok ? 'met' : '**not met**');

async function main(): Promise<number> {
  const startedAt = new Date();
  const started = performance.now();
  loads.push(loadavg()[0]!);
  console.error(
    `Starting two stacks (${INSTANCES} instances each): checkpoints every ${INTERVAL_MS} ms, and off...`,
  );
  const on = await startStack({ env: stackEnv(INTERVAL_MS) });
  let onRunning = true;
  const offDataDir = mkdtempSync(join(tmpdir(), 'bench-log-off-'));
  let off: EmbeddedStack | undefined;
  let rebuilt: EmbeddedStack | undefined;
  let witnesses: BenchWitness[] = [];
  try {
    off = await startStack({ env: stackEnv(0), dataDir: offDataDir });
    const onFirm = await createFirm(on, { name: 'Bench Log on' });
    const offFirm = await createFirm(off, { name: 'Bench Log off' });
    if (WITNESSES > 0) {
      console.error(`Starting and registering ${WITNESSES} witnesses...`);
      witnesses = await registerWitnesses(on, onFirm);
    }
    // At the rounds' own concurrency: warmed at 8 writers, the first round of either side ran 10–20 % slower. After
    // 200 appends, the first round (always ON) still used 30 % more CPU per append than ON's next one did (60 vs
    // 46 ms: its own node and JVM, not the other stack), and ran 19 % slower: JIT warm-up, not the log's cost.
    console.error(`Warming up (${WARMUP} appends at ${WRITERS} writers on each stack)...`);
    await runLoops(WARMUP, WRITERS, (i) => postIncidentForId(on.baseUrl, onFirm.apiKey, incidentBody(i)));
    await runLoops(WARMUP, WRITERS, (i) => postIncidentForId(off!.baseUrl, offFirm.apiKey, incidentBody(i)));

    const startedCpu = process.cpuUsage();
    cpuProbes.push(
      { label: 'ON stack (node)', read: () => treeCpuSeconds(on.pid, [on.dynamoPid]) },
      { label: 'ON DynamoDB Local', read: () => cpuSeconds(on.dynamoPid) },
      { label: 'OFF stack (node)', read: () => treeCpuSeconds(off!.pid, [off!.dynamoPid]) },
      { label: 'OFF DynamoDB Local', read: () => cpuSeconds(off!.dynamoPid) },
      { label: 'witnesses', read: () => witnesses.reduce((sum, w) => sum + treeCpuSeconds(w.pid), 0) },
      {
        label: 'bench',
        read: () => {
          const used = process.cpuUsage(startedCpu);
          return (used.user + used.system) / 1e6;
        },
      },
    );
    const onPoll = pollCheckpoints(on, await auditorKey(on, onFirm));
    const offPoll = pollCheckpoints(off, await auditorKey(off, offFirm));
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: ('on' | 'off')[] = r % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const side of order) {
        // Each round starts once the last one's work after its answers (copies, webhooks, a checkpoint and its
        // cosignatures) is done: it belongs to the last round's side, and would be charged to this round's.
        const pauseStart = readCpu();
        await sleep(SETTLE_MS);
        const pause = readCpu().map((after, i) => after - pauseStart[i]!);
        console.error(`Round ${r + 1}, checkpoints ${side}: ${APPENDS} appends at ${WRITERS} writers...`);
        rounds.push({
          ...(await appendRound(side === 'on' ? on : off, side === 'on' ? onFirm : offFirm, side)),
          pause,
        });
        const last = rounds.at(-1)!;
        console.error(
          `  ${fixed(last.appendsPerSecond)} appends/s, p99 ${fixed(last.p99)} ms, ${statusText(last.statuses)}`,
        );
      }
    }
    await offPoll.stop();
    // Every ON append's record must reach a checkpoint (and a cosigned one) by itself.
    const onHead = (await readHead(sideDeps(on), onFirm.firm.id)).sequenceNumber;
    const coverStart = performance.now();
    while (performance.now() - coverStart < COVER_TIMEOUT_MS) {
      const last = onPoll.seen.filter((c) => c.size >= onHead && c.cosignatures >= WITNESSES);
      if (last.length > 0) break;
      await sleep(POLL_MS);
    }
    await onPoll.stop();
    const sequences = await sequenceOf(on, onFirm.firm.id);
    const onRounds = rounds.filter((r) => r.side === 'on');
    const offRounds = rounds.filter((r) => r.side === 'off');
    const cover = coverLatencies(onRounds, sequences, onPoll.seen, WITNESSES);
    const witnessStatus = await (async () => {
      const token = await ledgerctl(on.dataDir, [
        'token',
        '--firm',
        onFirm.firm.id,
        '--email',
        onFirm.admin.email,
      ]);
      const response = await fetch(`${on.baseUrl}/v1/firm/me/witnesses`, {
        headers: { authorization: `Bearer ${(token.json as { token: string }).token}` },
      });
      return (await response.text()).slice(0, 2000);
    })();
    console.error(
      `appends/s on ${onRounds.map((r) => fixed(r.appendsPerSecond)).join(' ')}, off ${offRounds.map((r) => fixed(r.appendsPerSecond)).join(' ')}; ` +
        `commit → checkpoint p50 ${fixed(percentile(cover.toCheckpoint, 0.5), 0)} ms, p99 ${fixed(percentile(cover.toCheckpoint, 0.99), 0)} ms; ` +
        `→ cosigned p50 ${fixed(percentile(cover.toCosigned, 0.5), 0)} ms, p99 ${fixed(percentile(cover.toCosigned, 0.99), 0)} ms`,
    );
    if (cover.uncovered > 0) problems.push(`${cover.uncovered} ON appends never seen in a checkpoint`);
    for (const w of witnesses) await w.stop();
    witnesses = [];
    await on.stop();
    onRunning = false;

    // 3 and 4: ledgers written with checkpoints off, then the tree built once with them on.
    const small = await seed(off, SMALL, 'small');
    const large = await seed(off, LARGE, 'large');
    await off.stop();
    off = undefined;
    console.error('Restarting the seeded data with checkpoints on: the one-time build...');
    const restartAt = performance.now();
    rebuilt = await startStack({ env: stackEnv(INTERVAL_MS), dataDir: offDataDir });
    const readyAt = performance.now();
    const builds = await watchBuilds(rebuilt, [large, small], readyAt);
    for (const b of builds)
      console.error(
        `built ${b.firm.label}: tree ${fixed(b.treeMs / 1000)} s, checkpoint ${fixed(b.checkpointMs / 1000)} s`,
      );
    const quietAfter = await quiesce(rebuilt);
    console.error(
      `Proofs and consistency proofs (DynamoDB Local quiet after ${fixed(quietAfter / 1000)} s)...`,
    );
    const proofs = await measureProofs(rebuilt, [large, small]);
    for (const p of proofs)
      console.error(
        `${p.firm.label}: proof p50 ${fixed(p.proof.p50)} p99 ${fixed(p.proof.p99)} ms, consistency p50 ${fixed(p.consistency.p50)} p99 ${fixed(p.consistency.p99)} ms`,
      );
    const seconds = (performance.now() - started) / 1000;
    loads.push(loadavg()[0]!);

    // ---------- report ----------
    const onRate = mean(onRounds.map((r) => r.appendsPerSecond));
    const offRate = mean(offRounds.map((r) => r.appendsPerSecond));
    const pairRatios = onRounds.map((r, i) => r.appendsPerSecond / offRounds[i]!.appendsPerSecond);
    const fivexx = rounds.flatMap((r) => Object.entries(r.statuses).filter(([c]) => Number(c) >= 500));
    if (fivexx.length > 0) problems.push(`5xx during appends: ${JSON.stringify(fivexx)}`);
    const cp99 = percentile(cover.toCosigned, 0.99);
    const [largeProofs, smallProofs] = proofs as [(typeof proofs)[0], (typeof proofs)[0]];
    const largeBuild = builds[0]!;
    const cpu = cpus();
    const lines = [
      `Run: ${startedAt.toISOString()}, ${fixed(seconds, 0)} s in all, code at ${revision()}`,
      `Machine: ${cpu[0]?.model ?? 'unknown CPU'} x ${cpu.length} (nproc), Node ${process.version}; load average (1 min) ` +
        `${fixed(loads[0]!, 2)} at start, ${loads
          .slice(1, -1)
          .map((l) => fixed(l, 1))
          .join(' / ')} after each append round, ${fixed(loads.at(-1)!, 2)} at end`,
      `Settings: LOCAL_INSTANCES=${INSTANCES}, LOCAL_WORKER_INSTANCES=${WORKER_INSTANCES}, SIGNER_LATENCY_MS=${SIGNER_LATENCY_MS}, SIGNER_RATE_LIMIT=${SIGNER_RATE_LIMIT}, ` +
        `CHECKPOINT_INTERVAL_MS=${INTERVAL_MS} (on) / 0 (off), ${WITNESSES} witnesses (bin/witness.ts) registered on the ON firm, ` +
        `${ROUNDS} pairs of rounds of ${APPENDS} appends at ${WRITERS} writers, checkpoint polled every ${POLL_MS} ms on both stacks, ` +
        `LOG_REPAIR_INTERVAL_SECONDS=${REPAIR_SECONDS}, ${PROOFS} requests per kind and firm`,
      '',
      '| Goal | Measured | |',
      '|---|---|---|',
      `| Appends/s at ${WRITERS} writers, checkpoints + witnessing on ≥ 0.9 × off | ${fixed(onRate)} / ${fixed(offRate)} = ${fixed(onRate / offRate, 2)} (per pair: ${pairRatios.map((x) => fixed(x, 2)).join(', ')}) | ${check(onRate / offRate >= 0.9)} |`,
      `| Commit → cosigned checkpoint p99 ≤ 3 × CHECKPOINT_INTERVAL_MS (${3 * INTERVAL_MS} ms) | p50 ${fixed(percentile(cover.toCosigned, 0.5), 0)} ms, p99 ${fixed(cp99, 0)} ms (${cover.toCosigned.length} appends${cover.uncosigned ? `, ${cover.uncosigned} never seen cosigned` : ''}) | ${check(cp99 <= 3 * INTERVAL_MS && cover.uncosigned === 0)} |`,
      `| Proof p99 < 100 ms at ${large.head} records | ${fixed(largeProofs.proof.p99)} ms | ${check(largeProofs.proof.p99 < 100)} |`,
      `| Consistency p99 < 100 ms at ${large.head} records | ${fixed(largeProofs.consistency.p99)} ms | ${check(largeProofs.consistency.p99 < 100)} |`,
      `| Proof p50 large / small ≤ 1.5 | ${fixed(largeProofs.proof.p50)} / ${fixed(smallProofs.proof.p50)} = ${fixed(largeProofs.proof.p50 / smallProofs.proof.p50, 2)} | ${check(largeProofs.proof.p50 / smallProofs.proof.p50 <= 1.5)} |`,
      `| Consistency p50 large / small ≤ 1.5 | ${fixed(largeProofs.consistency.p50)} / ${fixed(smallProofs.consistency.p50)} = ${fixed(largeProofs.consistency.p50 / smallProofs.consistency.p50, 2)} | ${check(largeProofs.consistency.p50 / smallProofs.consistency.p50 <= 1.5)} |`,
      `| One-time build of a ${large.head}-record tree: records/s | ${fixed(large.head / (largeBuild.checkpointMs / 1000), 0)} records/s (${fixed(largeBuild.checkpointMs / 1000)} s from the restarted stack's readiness to the checkpoint of size ${large.head}) | (no goal) |`,
      '',
      '| Round | Checkpoints | Committed | Appends/s | p50 ms | p99 ms | Sign calls | Load (1 min) after | HTTP statuses |',
      '|---|---|---:|---:|---:|---:|---:|---:|---|',
      ...rounds.map(
        (r, i) =>
          `| ${Math.floor(i / 2) + 1} | ${r.side} | ${r.committed} | ${fixed(r.appendsPerSecond)} | ${fixed(r.p50)} | ${fixed(r.p99)} | ${r.signs} | ${fixed(r.load, 1)} | ${statusText(r.statuses)} |`,
      ),
      '',
      `CPU seconds per process in each round, and (in brackets) in the ${SETTLE_MS / 1000} s pause before it:`,
      '',
      `| Round | Checkpoints | Appends/s | ${cpuProbes.map((p) => p.label).join(' | ')} | CPU ms per append, all |`,
      `|---|---|---:|${cpuProbes.map(() => '---:').join('|')}|---:|`,
      ...rounds.map(
        (r, i) =>
          `| ${Math.floor(i / 2) + 1} | ${r.side} | ${fixed(r.appendsPerSecond)} | ${r.cpu.map((c, p) => `${fixed(c)} (${fixed(r.pause?.[p] ?? Number.NaN)})`).join(' | ')} | ${fixed((r.cpu.reduce((a, b) => a + b, 0) * 1000) / r.committed)} |`,
      ),
      '',
      "DynamoDB calls and worker invocations of the round's stack during the round, per append:",
      '',
      '| Round | Checkpoints | DynamoDB reads per append | writes per append | Worker invocations (all in the round) |',
      '|---|---|---:|---:|---|',
      ...rounds.map(
        (r, i) =>
          `| ${Math.floor(i / 2) + 1} | ${r.side} | ${fixed(r.counts.dynamoReadCalls / r.committed, 2)} | ${fixed(r.counts.dynamoWriteCalls / r.committed, 2)} | ${Object.entries(
            r.counts.workerInvocations,
          )
            .map(([name, n]) => `${name} ${n}`)
            .join(', ')} |`,
      ),
      '',
      `Commit → checkpoint (ON rounds, ${cover.toCheckpoint.length} appends): first log-signed checkpoint covering the record p50 ` +
        `${fixed(percentile(cover.toCheckpoint, 0.5), 0)} ms, p99 ${fixed(percentile(cover.toCheckpoint, 0.99), 0)} ms, max ${fixed(Math.max(...cover.toCheckpoint), 0)} ms; ` +
        `first one carrying ${WITNESSES} witness cosignatures p50 ${fixed(percentile(cover.toCosigned, 0.5), 0)} ms, p99 ${fixed(cp99, 0)} ms, max ${fixed(Math.max(...cover.toCosigned), 0)} ms. ` +
        `Distinct checkpoints seen: ${new Set(onPoll.seen.map((c) => c.size)).size} sizes, ${onPoll.seen.filter((c) => c.cosignatures >= WITNESSES).length} states with every cosignature; poll answers ON ${statusText(onPoll.statuses)}, OFF ${statusText(offPoll.statuses)}.`,
      '',
      '| Seeded firm (checkpoints off) | Records (head) | Seed s | Seed items/s | Tree first grows at s | Tree full at s | Checkpoint of full size at s | Build records/s (to the checkpoint) |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...builds.map(
        (b) =>
          `| ${b.firm.label} | ${b.firm.head} | ${fixed(b.firm.seedSeconds)} | ${b.firm.seedItemsPerSecond} | ${fixed(b.firstGrowthMs / 1000)} | ${fixed(b.treeMs / 1000)} | ${fixed(b.checkpointMs / 1000)} | ${fixed(b.firm.head / (b.checkpointMs / 1000), 0)} |`,
      ),
      `(times from the restarted stack's readiness; the restart itself took ${fixed((readyAt - restartAt) / 1000)} s; the large and small firms and the OFF rounds' firm were built at once)`,
      '',
      `Proofs measured once DynamoDB Local was quiet: ${fixed(quietAfter / 1000)} s after the build (under a fifth of a core for ${QUIET_WINDOW_MS / 1000} s).`,
      '',
      '| Firm | Records | Proof p50 ms | p99 ms | Consistency p50 ms | p99 ms | Statuses |',
      '|---|---:|---:|---:|---:|---:|---|',
      ...proofs.map(
        (p) =>
          `| ${p.firm.label} | ${p.firm.head} | ${fixed(p.proof.p50)} | ${fixed(p.proof.p99)} | ${fixed(p.consistency.p50)} | ${fixed(p.consistency.p99)} | proof ${statusText(p.proof.statuses)}; consistency ${statusText(p.consistency.statuses)} |`,
      ),
      '',
      problems.length === 0 ? 'No problem seen.' : `PROBLEMS: ${problems.slice(0, 20).join('; ')}`,
      '',
      `<details><summary>Witness status after the rounds</summary>\n\n${witnessStatus}\n\n</details>`,
    ];
    console.log(lines.join('\n'));
    return problems.length === 0 ? 0 : 1;
  } catch (error) {
    console.error(`bench/log failed: ${(error as Error).message}`);
    for (const [name, s] of [
      ['on', onRunning ? on : undefined],
      ['off', off],
      ['rebuilt', rebuilt],
    ] as const)
      if (s) console.error(`${name} stack output (tail):\n${s.logs().slice(-4000)}`);
    for (const w of witnesses) console.error(`witness output:\n${w.output().slice(-2000)}`);
    throw error;
  } finally {
    for (const w of witnesses) await w.stop();
    if (onRunning) await on.stop();
    await off?.stop();
    await rebuilt?.stop();
    // BENCH_KEEP_DATA=true keeps the seeded data for a closer look (npm start with DATA_DIR=<it>).
    if (KEEP_DATA) console.error(`Seeded data kept in ${offDataDir}`);
    else rmSync(offDataDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
