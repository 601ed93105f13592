/**
 * bench/append-ceiling: how fast could an append be on this machine, whatever the sequencer does? Issue #20's
 * storage goal asks for appends/s at 32 writers ≥ 0.25 × raw conditional PutItem/s at 32. This bench measures,
 * against the same DynamoDB Local in one run, the two parts every append pays and no design can remove:
 *
 *   - the request floor: `POST /v1/incidents` with an API key and a body that fails validation (400): the
 *     gateway, an instance, authentication; nothing written (the same floor as bench/append);
 *   - the storage work of the append, as bare DynamoDB calls from this process in the most favourable schedule
 *     (bench/lib/ideal-append.ts): 32 appends per round, in three item sets (cross-instance, no outbox, single
 *     process).
 *
 * The append rate cannot exceed 1 / (1 / floor + 1 / storage): both run on the same two cores, one after the
 * other for each append. Prints markdown for docs/benchmarks.md.
 *
 *   npm run bench:append-ceiling
 *
 * Environment: BENCH_ROUNDS (25 rounds of 32 appends per schedule and repetition), BENCH_PUTS (2000).
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { intEnv } from '../shared/runtime/config.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { idealRound, newChain, SCHEDULES, type Chain, type Schedule } from './lib/ideal-append.js';
import { FLOOR_BODY, postIncident } from './lib/incident-requests.js';
import { cpuSeconds, runLoops } from './lib/measure.js';
import { createScratchTable } from './lib/raw-put.js';
import { createFirm, startStack, type OnboardedFirm } from './lib/stack.js';

const ROUNDS = intEnv('BENCH_ROUNDS', 25);
const PUTS = intEnv('BENCH_PUTS', 2000);
const WRITERS = 32;
const REPETITIONS = 3;

/** Authenticated requests refused by validation, from 32 loops: what any append costs before its own work. */
async function floorRate(baseUrl: string, firm: OnboardedFirm, count: number): Promise<number> {
  const run = await runLoops(count, WRITERS, async () => {
    const status = await postIncident(baseUrl, firm.apiKey, FLOOR_BODY);
    if (status !== 400) throw new Error(`The floor request answered ${status}`);
  });
  return count / (run.wallMs / 1000);
}

interface Row {
  repetition: number;
  raw: number;
  floor: number;
  storage: Record<Schedule, { perSecond: number; dynamoCpuMs: number; benchCpuMs: number }>;
}

async function measure(): Promise<Row[]> {
  const stack = await startStack({ env: { LOCAL_INSTANCES: '8' } });
  const scratch = await createScratchTable(stack.dynamoEndpoint, stack.dynamoPid);
  try {
    const deps = createLocalDeps(stack);
    const firm = await createFirm(stack, { name: 'Bench Advisers ceiling' });
    const chains = new Map<Schedule, Chain>();
    for (const schedule of SCHEDULES) {
      // A firm per schedule: each chain stays gapless and its head is this process's.
      const { firm: own } = await createFirm(stack, { name: `Bench Advisers ${schedule}` });
      chains.set(schedule, await newChain(deps, own.id));
    }
    console.error('Warming up (4000 PutItem calls, 400 floor requests, 10 rounds per schedule)...');
    await scratch.measurePuts('warm-up', 8, 4000);
    await floorRate(stack.baseUrl, firm, 400);
    let n = 0;
    for (const schedule of SCHEDULES)
      for (let r = 0; r < 10; r++) await idealRound(chains.get(schedule)!, schedule, WRITERS, (n += WRITERS));
    const rows: Row[] = [];
    for (let repetition = 1; repetition <= REPETITIONS; repetition++) {
      // The yardstick before and after the schedules (DynamoDB Local's rate drifts within a run): their mean.
      const rawBefore = (await scratch.measurePuts(`p32-${repetition}-a`, WRITERS, PUTS)).putsPerSecond;
      const floor = await floorRate(stack.baseUrl, firm, PUTS / 2);
      const storage = {} as Row['storage'];
      for (const schedule of SCHEDULES) {
        const dynamo = cpuSeconds(stack.dynamoPid);
        const bench = process.cpuUsage();
        const started = performance.now();
        for (let r = 0; r < ROUNDS; r++)
          await idealRound(chains.get(schedule)!, schedule, WRITERS, (n += WRITERS));
        const appends = ROUNDS * WRITERS;
        const used = process.cpuUsage(bench);
        storage[schedule] = {
          perSecond: appends / ((performance.now() - started) / 1000),
          dynamoCpuMs: ((cpuSeconds(stack.dynamoPid) - dynamo) * 1000) / appends,
          benchCpuMs: (used.user + used.system) / 1000 / appends,
        };
      }
      const rawAfter = (await scratch.measurePuts(`p32-${repetition}-b`, WRITERS, PUTS)).putsPerSecond;
      rows.push({ repetition, raw: (rawBefore + rawAfter) / 2, floor, storage });
    }
    return rows;
  } finally {
    await scratch.drop();
    await stack.stop();
  }
}

function report(rows: readonly Row[], seconds: number, load: number[]): string {
  const fixed = (value: number, digits = 1) => value.toFixed(digits);
  const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  const lines = [
    `Run: ${new Date().toISOString()}, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ` +
      `Node ${process.version}, load average at start ${load.map((l) => fixed(l, 2)).join(' ')}, ${fixed(seconds, 0)} s; ` +
      `${ROUNDS} rounds of ${WRITERS} appends per schedule and repetition, ${PUTS} PutItem calls, ${PUTS / 2} floor requests.`,
    '',
    '| Repetition | Raw PutItem/s at 32 (mean before and after) | Request floor/s (× raw) | Schedule | Storage work, appends/s (× raw) | Ceiling 1/(1/floor + 1/storage), appends/s (× raw) | DynamoDB Local CPU ms / append | Bench process CPU ms / append |',
    '|---:|---:|---:|---|---:|---:|---:|---:|',
  ];
  for (const row of rows)
    for (const schedule of SCHEDULES) {
      const s = row.storage[schedule];
      const ceiling = 1 / (1 / row.floor + 1 / s.perSecond);
      lines.push(
        `| ${row.repetition} | ${fixed(row.raw)} | ${fixed(row.floor)} (${fixed(row.floor / row.raw, 2)}) | ${schedule} | ` +
          `${fixed(s.perSecond)} (${fixed(s.perSecond / row.raw, 3)}) | ${fixed(ceiling)} (${fixed(ceiling / row.raw, 3)}) | ` +
          `${fixed(s.dynamoCpuMs, 2)} | ${fixed(s.benchCpuMs, 2)} |`,
      );
    }
  return lines.join('\n');
}

const load = loadavg();
const started = performance.now();
const rows = await measure();
console.log(report(rows, (performance.now() - started) / 1000, load));
