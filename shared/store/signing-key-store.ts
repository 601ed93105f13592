import type { SigningKeyHistory } from '../ledger/key-history.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys, SIGNING_KEYS_PK } from './keys.js';

/**
 * A stored version of the signing-key history: the public history and, beside it (never published), the id by
 * which the service's signer reaches each key (a KMS key ARN in AWS, `local:<fingerprint prefix>` locally).
 */
export interface StoredKeyHistory {
  history: SigningKeyHistory;
  /** fingerprint → signer key id. */
  keyIds: Record<string, string>;
  writtenAt: string;
}

/**
 * The current (highest) version, or null before the first version is written. Versions live in the ledger
 * table under `SIGNINGKEYS` / `V#<12-digit version>`: every function that appends or verifies already reads
 * that table, and versions are only ever added (like records), never updated.
 */
export async function readKeyHistory(deps: Deps): Promise<StoredKeyHistory | null> {
  const page = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': SIGNING_KEYS_PK },
    ScanIndexForward: false,
    Limit: 1,
    ConsistentRead: true,
  });
  const item = page.Items?.[0];
  if (!item) return null;
  return {
    history: JSON.parse(item.history as string) as SigningKeyHistory,
    keyIds: item.keyIds as Record<string, string>,
    writtenAt: item.writtenAt as string,
  };
}

/**
 * Adds a version; false when that version already exists (another operator's change won: read and retry).
 * The history is stored as its JSON text, so the published bytes are exactly the ones written.
 */
export async function writeKeyHistoryVersion(deps: Deps, stored: StoredKeyHistory): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: {
          ...keys.signingKeyVersion(stored.history.version),
          version: stored.history.version,
          history: JSON.stringify(stored.history),
          keyIds: stored.keyIds,
          writtenAt: stored.writtenAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (outcome.status === 'committed') return true;
  if (outcome.status === 'condition-failed') return false;
  throw new Error(
    `Writing signing-key history version ${stored.history.version} failed: ${JSON.stringify(outcome)}`,
  );
}
