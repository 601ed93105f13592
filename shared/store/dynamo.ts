import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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
