import type * as DynamoSdk from '@aws-sdk/client-dynamodb';
import type * as DocumentSdk from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { once } from '../once.js';

/*
 * The DynamoDB SDK is loaded on first use, never at a function's init: this module and every store import it
 * only as types (erased), and reach its classes through documentSdk() / dynamoSdk(), an `await import(...)`.
 * A function that never touches a table (/health, the signing key, the OpenAPI document) never loads the
 * client, ~100 ms of a cold start (docs/benchmarks.md, "Lean functions"); the others load it with their first
 * query. Same reason and mechanism as the other clients (shared/adapters/aws/lazy-sdk.ts): esbuild hoists a
 * static import of an external module to the top of the bundle, where it is evaluated at init.
 */

/** @aws-sdk/lib-dynamodb (document client and its commands), loaded on first call. */
export const documentSdk: () => Promise<typeof DocumentSdk> = once(() => import('@aws-sdk/lib-dynamodb'));

/** @aws-sdk/client-dynamodb (low-level commands, service exceptions), loaded on first call. */
export const dynamoSdk: () => Promise<typeof DynamoSdk> = once(() => import('@aws-sdk/client-dynamodb'));

/** What the stores need of a DynamoDB document client: sending commands. A DynamoDBDocumentClient is one. */
export type DocumentDb = Pick<DynamoDBDocumentClient, 'send'>;

export interface TableNames {
  main: string;
  ledger: string;
}

/**
 * The document client every store uses; `endpoint` points it at DynamoDB Local. The client (and the SDK) is
 * created on the first command sent, once; a failed creation is retried on the next. `budget` is the
 * composition root's timeouts and retries (sdkClientBudget in shared/runtime/config.ts); without it, the SDK's
 * defaults with 5 attempts (ledgerctl, tests).
 */
export function createDocumentClient(
  endpoint?: string,
  budget: DynamoSdk.DynamoDBClientConfig = { maxAttempts: 5 },
): DocumentDb {
  const client = once(async () => {
    const [{ DynamoDBClient }, { DynamoDBDocumentClient }] = await Promise.all([dynamoSdk(), documentSdk()]);
    const low = new DynamoDBClient(
      endpoint
        ? {
            endpoint,
            region: 'local',
            credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
            ...budget,
          }
        : budget,
    );
    return DynamoDBDocumentClient.from(low, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  });
  // Commands only, as the stores send them (no per-call options, no callback).
  const send = async (command: Parameters<DocumentDb['send']>[0]) => (await client()).send(command);
  return { send: send as DocumentDb['send'] };
}

/** The document commands the stores send, with their input and output. */
interface DocumentCommands {
  Get: [DocumentSdk.GetCommandInput, DocumentSdk.GetCommandOutput];
  Put: [DocumentSdk.PutCommandInput, DocumentSdk.PutCommandOutput];
  Update: [DocumentSdk.UpdateCommandInput, DocumentSdk.UpdateCommandOutput];
  Delete: [DocumentSdk.DeleteCommandInput, DocumentSdk.DeleteCommandOutput];
  Query: [DocumentSdk.QueryCommandInput, DocumentSdk.QueryCommandOutput];
  Scan: [DocumentSdk.ScanCommandInput, DocumentSdk.ScanCommandOutput];
  TransactWrite: [DocumentSdk.TransactWriteCommandInput, DocumentSdk.TransactWriteCommandOutput];
  BatchWrite: [DocumentSdk.BatchWriteCommandInput, DocumentSdk.BatchWriteCommandOutput];
}

/**
 * Sends one document command, e.g. `send(deps.db, 'Get', { TableName, Key })`: the command class is taken from
 * the SDK loaded on first use, so callers need no value import of it.
 */
export async function send<N extends keyof DocumentCommands>(
  db: DocumentDb,
  command: N,
  input: DocumentCommands[N][0],
): Promise<DocumentCommands[N][1]> {
  const Command = (await documentSdk())[`${command}Command`] as unknown as new (
    input: DocumentCommands[N][0],
  ) => Parameters<DocumentDb['send']>[0];
  return (await db.send(new Command(input))) as DocumentCommands[N][1];
}

/** Strips the storage attributes (keys, index attributes) from an item. */
export function withoutKeys<T extends Record<string, unknown>>(item: T, extra: readonly string[] = []): T {
  const copy: Record<string, unknown> = { ...item };
  for (const name of ['pk', 'sk', ...extra]) delete copy[name];
  return copy as T;
}

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(
  db: DocumentDb,
  input: DocumentSdk.QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(db, 'Query', { ...input, ExclusiveStartKey: startKey });
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** How many items a query matches (Select COUNT), across pages. */
export async function countAll(db: DocumentDb, input: DocumentSdk.QueryCommandInput): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(db, 'Query', { ...input, Select: 'COUNT', ExclusiveStartKey: startKey });
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}
