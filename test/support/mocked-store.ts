import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { Deps } from '../../shared/runtime/deps.js';

/**
 * Deps for a unit test of DynamoDB access: a real document client whose calls aws-sdk-client-mock answers (`db`,
 * reset it in `beforeEach`), tables named `main` and `ledger`, and whatever else the test gives (a clock, …).
 */
export function mockedStore(extra: Partial<Deps> = {}) {
  const db = mockClient(DynamoDBDocumentClient);
  const deps = {
    db: DynamoDBDocumentClient.from(
      new DynamoDBClient({ region: 'eu-west-2', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }),
    ),
    tables: { main: 'main', ledger: 'ledger' },
    ...extra,
  } as unknown as Deps;
  return { db, deps };
}
