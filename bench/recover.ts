/**
 * `npm run bench:recover` (issue 32, fault 6): how fast `ledgerctl recover ledger` rebuilds a lost ledger, against
 * raw BatchWriteItem of the same number of items of the same size in the same run (goal: at least 0.5×).
 *
 * On a fresh embedded stack: `ledgerctl seed --create --records N --jobs 0` writes a firm's chain (rows, head and
 * immutable copies); then, per run, the firm's ledger partition is deleted straight in DynamoDB Local, a raw
 * BatchWriteItem loop of N record rows of the seeded rows' size runs (bench/lib/raw-batch-write.ts: no reading,
 * hashing or checking), and `ledgerctl recover ledger --firm F` rebuilds the chain from the copies. Recovery's
 * rate is its records over its records phase (list excluded: read, check, write) and over the whole command
 * (process start, listing, head, backup reconciliation included). Runs alternate, so both see the same machine.
 *
 *   npm run bench:recover -- [--records N] [--runs R]      (default 10,000 records, 2 runs)
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../shared/runtime/deps.js';
import { createLocalDeps } from '../shared/runtime/local-deps.js';
import { keys } from '../shared/store/keys.js';
import { ledgerctl } from '../test/support/local-stack.js';
import { rawBatchWriteRate } from './lib/raw-batch-write.js';
import { startStack } from './lib/stack.js';

const { values } = parseArgs({ options: { records: { type: 'string' }, runs: { type: 'string' } } });
const RECORDS = Number(values.records ?? process.env.BENCH_RECORDS ?? 10_000);
const RUNS = Number(values.runs ?? process.env.BENCH_RUNS ?? 2);

/** Deletes every item of the firm's ledger partition; returns the record rows' average JSON size. */
async function loseLedger(deps: Deps, firmId: string): Promise<number> {
  let startKey: Record<string, unknown> | undefined;
  let bytes = 0;
  let rows = 0;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tables.ledger,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.firmPk(firmId) },
        ExclusiveStartKey: startKey,
      }),
    );
    const items = page.Items ?? [];
    for (const item of items)
      if (String(item.sk).startsWith('REC#')) {
        bytes += JSON.stringify(item).length;
        rows++;
      }
    for (let i = 0; i < items.length; i += 25)
      await deps.db.send(
        new BatchWriteCommand({
          RequestItems: {
            [deps.tables.ledger]: items
              .slice(i, i + 25)
              .map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
          },
        }),
      );
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows > 0 ? Math.round(bytes / rows) : 0;
}

const stack = await startStack();
try {
  const deps = createLocalDeps(stack);
  const seeded = await ledgerctl(stack.dataDir, [
    'seed',
    '--create',
    '--records',
    String(RECORDS),
    '--jobs',
    '0',
    '--days',
    '30',
  ]);
  if (seeded.code !== 0) throw new Error(`ledgerctl seed failed: ${seeded.stderr}`);
  const { firmId } = seeded.json as { firmId: string };
  console.error(`seeded ${RECORDS} records for ${firmId}`);
  const runs: Record<string, number>[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const itemBytes = await loseLedger(deps, firmId);
    const raw = await rawBatchWriteRate(deps, { items: RECORDS, itemBytes });
    const started = performance.now();
    const result = await ledgerctl(stack.dataDir, [
      'recover',
      'ledger',
      '--firm',
      firmId,
      ...(run > 1 ? ['--force'] : []),
    ]);
    const wall = (performance.now() - started) / 1000;
    if (result.code !== 0) throw new Error(`ledgerctl recover failed: ${result.stderr}`);
    const recovery = result.json as {
      status: string;
      recovered: number;
      recordsPerSecond: number;
      seconds: number;
      phasesMs: Record<string, number>;
    };
    if (recovery.status !== 'complete' || recovery.recovered !== RECORDS)
      throw new Error(`recovery incomplete: ${result.stdout}`);
    const row = {
      run,
      itemBytes,
      rawItemsPerSecond: raw.itemsPerSecond,
      recoverRecordsPerSecond: recovery.recordsPerSecond,
      recoverCommandRecordsPerSecond: Math.round(RECORDS / recovery.seconds),
      recoverWallSeconds: Math.round(wall * 100) / 100,
      ratio: Math.round((100 * recovery.recordsPerSecond) / raw.itemsPerSecond) / 100,
      commandRatio: Math.round((100 * RECORDS) / recovery.seconds / raw.itemsPerSecond) / 100,
    };
    console.error(JSON.stringify({ ...row, phasesMs: recovery.phasesMs }));
    runs.push(row);
  }
  console.log(`records ${RECORDS}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}`);
  console.log(
    '| run | row bytes | raw BatchWriteItem items/s | recover records/s (records phase) | ratio | whole command records/s | ratio |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of runs)
    console.log(
      `| ${r.run} | ${r.itemBytes} | ${r.rawItemsPerSecond} | ${r.recoverRecordsPerSecond} | ${r.ratio} | ${r.recoverCommandRecordsPerSecond} | ${r.commandRatio} |`,
    );
} finally {
  await stack.stop();
}
