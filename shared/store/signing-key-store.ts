import type { SigningKeyHistory } from '../ledger/key-history.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally } from './conditional-write.js';
import { queryAll, send } from './dynamo.js';
import { CHECKPOINT_KEYS_PK, keys, SIGNING_KEYS_PK } from './keys.js';

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

/** A registered checkpoint key (issue 31): its public key, from when it signs, and how the signer reaches it. */
export interface StoredCheckpointKey {
  publicKey: string;
  validFrom: string;
  /** KMS key ARN, or `local:ed25519:<prefix>`: never published. */
  signerKeyId: string;
}

/** Every registered checkpoint key, oldest first (`CHECKPOINTKEYS` in the ledger table, append-only). */
export async function readCheckpointKeys(deps: Deps): Promise<StoredCheckpointKey[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': CHECKPOINT_KEYS_PK },
    ConsistentRead: true,
  });
  return items.map((item) => ({
    publicKey: item.publicKey as string,
    validFrom: item.validFrom as string,
    signerKeyId: item.signerKeyId as string,
  }));
}

/** Registers a checkpoint key from `validFrom` on (once per key and instant). */
export async function putCheckpointKey(
  deps: Deps,
  key: StoredCheckpointKey,
  keyDigest: string,
): Promise<void> {
  await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { pk: CHECKPOINT_KEYS_PK, sk: `K#${key.validFrom}#${keyDigest}`, ...key },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
}
