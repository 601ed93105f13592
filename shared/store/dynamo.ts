import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';

export interface TableNames {
  main: string;
  ledger: string;
}

/** The document client every store uses; `endpoint` points it at DynamoDB Local. */
export function createDocumentClient(endpoint?: string): DynamoDBDocumentClient {
  const client = new DynamoDBClient(
    endpoint
      ? {
          endpoint,
          region: 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          maxAttempts: 5,
        }
      : { maxAttempts: 5 },
  );
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

/** Strips the storage attributes (keys, index attributes) from an item. */
export function withoutKeys<T extends Record<string, unknown>>(item: T, extra: readonly string[] = []): T {
  const copy: Record<string, unknown> = { ...item };
  for (const name of ['pk', 'sk', ...extra]) delete copy[name];
  return copy as T;
}

/** Every item a query matches, following LastEvaluatedKey across pages. */
export async function queryAll(
  db: DynamoDBDocumentClient,
  input: QueryCommandInput,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** How many items a query matches (Select COUNT), across pages. */
export async function countAll(db: DynamoDBDocumentClient, input: QueryCommandInput): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}
