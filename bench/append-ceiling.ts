/**
 * bench/append-ceiling: how fast could an append be on this machine, whatever the sequencer does? Issue #20's
 * storage goal asks for appends/s at 32 writers ≥ 0.25 × raw conditional PutItem/s at 32. This bench measures,
 * against the same DynamoDB Local in one run, the two parts every append pays and no design can remove:
 *
 *   - the request floor: `POST /v1/incidents` with an API key and a body that fails validation (400): the
 *     gateway, an instance, authentication; nothing written (the same floor as bench/append);
 *   - the storage work of the append, as bare DynamoDB calls from this process in the most favourable schedule:
 *     32 appends per round, every batch as large as one transaction allows, each asker looking once, no lease
 *     calls, no condition pre-check, no retries, no waits, no signer latency, no HTTP. Three item sets:
 *       cross-instance:  today's (per append the intent put, the record row with its indexes, the outbox entry,
 *                        the intent's delete, the incident, the counter delta summed per batch, the copy, the
 *                        outbox entry's delete, one look; per round the intents read and the webhook endpoints
 *                        read);
 *       no outbox:       the same without the outbox entry (its put and its delete): the most any outbox design
 *                        could save;
 *       single process:  no intent, no look, no outbox: what a design could do if appends never had to cross
 *                        instances, which Lambda instances must (they share nothing but the stores).
 *
 * The append rate cannot exceed 1 / (1 / floor + 1 / storage): both run on the same two cores, one after the
 * other for each append. Prints markdown for docs/benchmarks.md.
 *
 *   npm run bench:append-ceiling
 *
 * Environment: BENCH_ROUNDS (25 rounds of 32 appends per schedule and repetition), BENCH_PUTS (2000).
 */
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { execFileSync } from 'node:child_process';
import { actorOf, type Principal } from '../shared/domain/auth/principal.js';
import { incidentMetadata } from '../shared/domain/governance/incidents.js';
import { newIncident } from '../shared/services/incidents.js';
import { newId } from '../shared/ids.js';
import {
  canonicalJson,
  computeChainHash,
  computeRecordHash,
  signedMessage,
} from '../shared/ledger/hashing.js';
import type { LedgerRecord } from '../shared/ledger/record.js';
import { placeBatch, planBatch, type PendingAppend } from '../shared/ledger-writer/append-batch.js';
import { subscribersOfFirm } from '../shared/ledger-writer/dispatch.js';
import { intEnv } from '../shared/runtime/config.js';
import type { Deps } from '../shared/runtime/deps.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { isAdditive, mergeAdditive } from '../shared/store/additive-updates.js';
import { committedIntentItem, listIntents, putIntent } from '../shared/store/append-intent-store.js';
import { writeConditionally, type TransactItem } from '../shared/store/conditional-write.js';
import { incidentCounterItems } from '../shared/store/counter-store.js';
import { immutableRecordKey } from '../shared/store/immutable-layout.js';
import { incidentPutItem } from '../shared/store/incident-store.js';
import { clearOutboxes, outboxItem } from '../shared/store/ledger-outbox-store.js';
import { getRecordById, headAt, readHead, type ChainHead } from '../shared/store/ledger-store.js';
import { headItem, recordItem } from '../shared/store/ledger-writes.js';
import { cpuSeconds, runLoops } from './lib/measure.js';
import { createScratchTable } from './lib/raw-put.js';
import { createFirm, startStack, type OnboardedFirm } from './lib/stack.js';

const ROUNDS = intEnv('BENCH_ROUNDS', 25);
const PUTS = intEnv('BENCH_PUTS', 2000);
const WRITERS = 32;
const REPETITIONS = 3;

type Schedule = 'cross-instance' | 'no outbox' | 'single process';
const SCHEDULES: readonly Schedule[] = ['cross-instance', 'no outbox', 'single process'];

interface Chain {
  deps: Deps;
  firmId: string;
  head: ChainHead;
  key: KeyObject;
  /** The key's SPKI, base64, as a record carries it (records as large as the product's). */
  publicKey: string;
}

/** One incident append, as the service builds it (the incident and its counter delta commit with the record). */
function incidentAppend(chain: Chain, n: number): PendingAppend {
  const principal: Principal = {
    kind: 'apiKey',
    firmId: chain.firmId,
    keyId: 'key_bench',
    name: 'Bench key',
  };
  const incident = newIncident(
    principal,
    {
      title: `Incident ${n}`,
      description: 'bench',
      severity: 'LOW',
      category: 'OPERATIONAL',
      affectedReviewJobIds: [],
      affectedLedgerRecordIds: [],
      metadata: {},
    },
    new Date().toISOString(),
  );
  return {
    recordId: newId('record'),
    firmId: chain.firmId,
    eventType: 'INCIDENT_LOGGED',
    actor: actorOf(principal),
    documentHash: '',
    documentMetadata: incidentMetadata(incident),
    reviewJobId: null,
    requestedAt: new Date().toISOString(),
    extras: [
      incidentPutItem(chain.deps, incident),
      ...incidentCounterItems(chain.deps, chain.firmId, incident.id, null, incident),
    ],
    timestampToken: 'unused',
  };
}

/** Places, hashes and signs `batch` after the chain's head. */
function seal(chain: Chain, batch: readonly PendingAppend[]): { record: LedgerRecord; body: string }[] {
  let previousHash = chain.head.chainHash;
  return placeBatch(batch, chain.head).map((payload) => {
    const recordHash = computeRecordHash(payload);
    const chainHash = computeChainHash(previousHash, recordHash);
    const signature = sign('sha256', signedMessage(chainHash), { key: chain.key, dsaEncoding: 'der' });
    const record = {
      ...payload,
      previousHash,
      recordHash,
      chainHash,
      signature: signature.toString('base64'),
      publicKey: chain.publicKey,
    } as LedgerRecord;
    previousHash = chainHash;
    return { record, body: canonicalJson(record) };
  });
}

/** One round: 32 appends through `schedule`'s calls, batches as large as a transaction allows. */
async function round(chain: Chain, schedule: Schedule, first: number): Promise<void> {
  const { deps, firmId } = chain;
  const appends = Array.from({ length: WRITERS }, (_, i) => incidentAppend(chain, first + i));
  const crossing = schedule !== 'single process';
  const outbox = schedule === 'cross-instance';
  if (crossing) await Promise.all(appends.map((append) => putIntent(deps, append)));
  const [waiting] = await Promise.all([
    crossing ? listIntents<PendingAppend>(deps, firmId, 100, '0').then((r) => r.pending) : appends,
    subscribersOfFirm(deps, firmId),
  ]);
  let rest = [...waiting].sort((a, b) => (a.recordId < b.recordId ? -1 : 1));
  const committed: { record: LedgerRecord; body: string }[] = [];
  while (rest.length > 0) {
    // planBatch counts a record row and an outbox entry per append; the intent's delete adds one item, and
    // a schedule without the outbox takes its entry back.
    const planned = planBatch(rest, () => (crossing ? 1 : 0) - (outbox ? 0 : 1));
    rest = planned.rest;
    const sealed = seal(chain, planned.batch);
    const extras = planned.batch.flatMap((append) => append.extras);
    const items: TransactItem[] = [
      headItem(deps, sealed.at(-1)!.record, chain.head),
      ...sealed.flatMap(({ record, body }, i) => [
        recordItem(deps, record),
        ...(outbox ? [outboxItem(deps, record, body)] : []),
        ...(crossing ? [committedIntentItem(deps, planned.batch[i]!)] : []),
      ]),
      ...extras.filter((item) => !isAdditive(item)),
      ...(extras.some(isAdditive) ? [mergeAdditive(extras.filter(isAdditive))] : []),
    ];
    const outcome = await writeConditionally(deps, items);
    if (outcome.status !== 'committed')
      throw new Error(`A bench batch did not commit: ${JSON.stringify(outcome)}`);
    chain.head = headAt(sealed.at(-1)!.record);
    committed.push(...sealed);
  }
  await Promise.all([
    ...(crossing
      ? appends.map(async (append) => {
          if (!(await getRecordById(deps, firmId, append.recordId)))
            throw new Error('A record was not found');
        })
      : []),
    (async () => {
      await Promise.all(
        committed.map(({ record, body }) =>
          deps.objects.put(
            'immutable',
            immutableRecordKey(firmId, record.sequenceNumber, record.id),
            new TextEncoder().encode(body),
            'application/json',
          ),
        ),
      );
      if (outbox)
        await clearOutboxes(
          deps,
          firmId,
          committed.map(({ record }) => record.sequenceNumber),
        );
    })(),
  ]);
}

/** Authenticated requests refused by validation, from 32 loops: what any append costs before its own work. */
async function floorRate(baseUrl: string, firm: OnboardedFirm, count: number): Promise<number> {
  const run = await runLoops(count, WRITERS, async () => {
    const response = await fetch(`${baseUrl}/v1/incidents`, {
      method: 'POST',
      headers: { 'X-Service-Key': firm.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: '' }),
    });
    await response.arrayBuffer();
    if (response.status !== 400) throw new Error(`The floor request answered ${response.status}`);
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
      const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const publicKey = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
      chains.set(schedule, { deps, firmId: own.id, head: await readHead(deps, own.id), key, publicKey });
    }
    console.error('Warming up (4000 PutItem calls, 400 floor requests, 10 rounds per schedule)...');
    await scratch.measurePuts('warm-up', 8, 4000);
    await floorRate(stack.baseUrl, firm, 400);
    let n = 0;
    for (const schedule of SCHEDULES)
      for (let r = 0; r < 10; r++) await round(chains.get(schedule)!, schedule, (n += WRITERS));
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
        for (let r = 0; r < ROUNDS; r++) await round(chains.get(schedule)!, schedule, (n += WRITERS));
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
