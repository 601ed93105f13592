/**
 * bench/verify: records verified per second on a chain of BENCH_RECORDS (default 100,000) records on the
 * embedded stack, through the real verification path (startVerification: chunked DynamoDB reads with
 * read-ahead, hashes, links, signatures), next to `openssl speed ecdsap256` measured in the same run.
 * Also splits the time: reading the rows alone, and checking rows already in memory.
 *
 *   npm run bench:verify            (BENCH_RECORDS=20000 for a quicker run)
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { checkChunk, startCursor, type StoredRow } from '../shared/domain/integrity/chain-check.js';
import type { Principal } from '../shared/domain/auth/principal.js';
import type { LedgerRecord } from '../shared/ledger/record.js';
import { sealRecord } from '../shared/ledger/seal.js';
import { publicKeyBase64 } from '../shared/ledger/signing-key.js';
import { genesisHistory } from '../shared/ledger/key-rotation.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { startVerification, VERIFY_CHUNK } from '../shared/services/integrity/verification-runs.js';
import { keys } from '../shared/store/keys.js';
import { queryRowRange } from '../shared/store/ledger-store.js';
import { ledgerctl, startStack, stopStack } from '../test/support/local-stack.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);

/** The code measured: taken at start, since the modules are loaded then. */
function describeCommit(): string {
  try {
    return execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown (not a git checkout)';
  }
}
const commit = describeCommit();

function opensslVerifyPerSecond(): number {
  const out = execFileSync('openssl', ['speed', '-seconds', '3', 'ecdsap256'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const line = out.split('\n').find((l) => l.includes('nistp256'));
  const numbers =
    line
      ?.trim()
      .split(/\s+/)
      .filter((t) => /^\d+(\.\d+)?$/.test(t))
      .map(Number) ?? [];
  return numbers[numbers.length - 1] ?? Number.NaN; // sign s, verify s, sign/s, verify/s
}

function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

const stack = await startStack();
// Ctrl-C still stops the stack (and its DynamoDB Local) rather than orphaning it.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopStack(stack, { removeData: true }).finally(() => process.exit(130)));
}
try {
  const created = await ledgerctl(stack.dataDir, [
    'firm',
    'create',
    '--name',
    'Bench Verify',
    '--frn',
    '123456',
    '--plan',
    'LEDGER',
    '--admin-name',
    'B',
    '--admin-email',
    'b@bench.test',
  ]);
  const { firm } = created.json as { firm: { id: string } };
  const deps = createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
  const key = await publicKeyBase64(deps.signer);

  // Seed: seal a real chain with the stack's own key and write it in batches (the append path itself is
  // measured by bench/append; here only the chain's content matters).
  let seedStart = performance.now();
  const records: LedgerRecord[] = [];
  let previous: string | null = null;
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');
  for (let n = 1; n <= RECORDS; n++) {
    const record = await sealRecord(
      {
        id: `rec_bench${String(n).padStart(17, '0')}`,
        firmId: firm.id,
        sequenceNumber: n,
        eventType: 'DOCUMENT_SUBMITTED',
        actorId: 'usr_bench',
        actorName: 'Bench Reviewer',
        actorFcaRef: 'BEN00001',
        documentHash: 'ab'.repeat(32),
        documentMetadata: {
          documentReference: `DOC-${n}`,
          documentType: 'SUITABILITY_REPORT',
          clientReference: `C-${n % 997}`,
        },
        timestamp: new Date(t0 + n * 1000).toISOString(),
        reviewJobId: null,
      },
      previous,
      deps.signer,
      key,
    );
    records.push(record);
    previous = record.chainHash;
  }
  const sealSeconds = (performance.now() - seedStart) / 1000;
  seedStart = performance.now();
  const batches: LedgerRecord[][] = [];
  for (let i = 0; i < records.length; i += 25) batches.push(records.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        const batch = batches[next++]!;
        let requests = batch.map((r) => ({
          PutRequest: { Item: { ...keys.ledgerRecord(firm.id, r.sequenceNumber), ...r } },
        }));
        while (requests.length > 0) {
          const result = await deps.db.send(
            new BatchWriteCommand({ RequestItems: { [deps.tables.ledger]: requests } }),
          );
          requests = (result.UnprocessedItems?.[deps.tables.ledger] ?? []) as typeof requests;
        }
      }
    }),
  );
  const last = records[records.length - 1]!;
  await deps.db.send(
    new PutCommand({
      TableName: deps.tables.ledger,
      Item: {
        ...keys.ledgerHead(firm.id),
        sequenceNumber: RECORDS,
        chainHash: last.chainHash,
        timestamp: last.timestamp,
      },
    }),
  );
  const writeSeconds = (performance.now() - seedStart) / 1000;

  const loadBefore = loadavg()[0]!;
  const opensslRate = opensslVerifyPerSecond();

  // 1. The real path: a full verification run, inline; twice, the first against a cold DynamoDB Local.
  const principal: Principal = { kind: 'apiKey', firmId: firm.id, keyId: 'key_bench', name: 'bench' };
  const runs: { seconds: number; cpu: number }[] = [];
  for (let i = 0; i < 2; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const { verification, result } = await startVerification(deps, principal, {
      inlineMaxRecords: Number.POSITIVE_INFINITY,
      budgetMs: Number.POSITIVE_INFINITY,
    });
    runs.push({ seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(cpu) });
    // Each run's CHAIN_VERIFIED record joins the chain the next run checks.
    if (!result.complete || result.valid !== true || result.recordsChecked !== RECORDS + i) {
      throw new Error(`Verification did not check the whole chain cleanly: ${JSON.stringify(verification)}`);
    }
  }
  const [cold, warm] = runs as [{ seconds: number; cpu: number }, { seconds: number; cpu: number }];

  // 2. Reading alone: the same chunked reads, no checks.
  let start = performance.now();
  const rows: StoredRow[] = [];
  for (let from = 1; from <= RECORDS; from += VERIFY_CHUNK)
    rows.push(...(await queryRowRange(deps, firm.id, from, Math.min(from + VERIFY_CHUNK - 1, RECORDS))));
  const readSeconds = (performance.now() - start) / 1000;

  // 3. Checking alone: rows already in memory.
  const cpu = process.cpuUsage();
  start = performance.now();
  let cursor = startCursor(1, null);
  for (let from = 1; from <= RECORDS; from += VERIFY_CHUNK) {
    const through = Math.min(from + VERIFY_CHUNK - 1, RECORDS);
    cursor = checkChunk(firm.id, rows.slice(from - 1, through), through, cursor, genesisHistory(key)).cursor;
  }
  const checkSeconds = (performance.now() - start) / 1000;
  const checkCpu = cpuSeconds(cpu);

  const loadAfter = loadavg()[0]!;
  // openssl again after the runs: on a shared machine the reference rate moves with the load too.
  const opensslRateAfter = opensslVerifyPerSecond();
  const opensslMean = (opensslRate + opensslRateAfter) / 2;
  const rate = RECORDS / warm.seconds;
  const cores = warm.cpu / warm.seconds;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-GB');
  console.log(
    `\n## bench/verify — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}\n`,
  );
  console.log(
    `Chain: ${fmt(RECORDS)} records (sealed in ${sealSeconds.toFixed(1)} s, written in ${writeSeconds.toFixed(1)} s).\n`,
  );
  console.log('| measure | records/s | wall s | Node CPU s |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| full verification run, first (cold DynamoDB Local) | ${fmt(RECORDS / cold.seconds)} | ${cold.seconds.toFixed(1)} | ${cold.cpu.toFixed(1)} |`,
  );
  console.log(
    `| full verification run, second | ${fmt(rate)} | ${warm.seconds.toFixed(1)} | ${warm.cpu.toFixed(1)} |`,
  );
  console.log(
    `| reading rows only (DynamoDB Local) | ${fmt(RECORDS / readSeconds)} | ${readSeconds.toFixed(1)} | |`,
  );
  console.log(
    `| checking rows in memory only | ${fmt(RECORDS / checkSeconds)} | ${checkSeconds.toFixed(1)} | ${checkCpu.toFixed(1)} |`,
  );
  console.log(`| openssl speed ecdsap256, verify (1 core), before the runs | ${fmt(opensslRate)} | | |`);
  console.log(`| openssl speed ecdsap256, verify (1 core), after the runs | ${fmt(opensslRateAfter)} | | |`);
  console.log(
    `\nCommit ${commit}; load average (1 min) ${loadBefore.toFixed(2)} before the runs, ${loadAfter.toFixed(2)} after.`,
  );
  console.log(
    `\nVerifier process: ${cores.toFixed(2)} cores busy on average (Node is single-threaded; DynamoDB Local runs in its own JVM).`,
  );
  console.log(
    `Real path (second run): ${((rate / opensslMean) * 100).toFixed(0)} % of openssl's per-core verify rate (mean of before and after, ${fmt(opensslMean)}/s); per Node core used: ${((rate / cores / opensslMean) * 100).toFixed(0)} %.`,
  );
  console.log(
    `In-memory checking: ${((RECORDS / checkSeconds / opensslMean) * 100).toFixed(0)} % of openssl per core; per Node core used: ${((RECORDS / checkCpu / opensslMean) * 100).toFixed(0)} %.`,
  );
} finally {
  await stopStack(stack, { removeData: true });
}
