import type { ApiKeyScope } from '../domain/auth/principal.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { writeConditionally, writeNew, type TransactItem } from './conditional-write.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

export interface ApiKeyItem {
  id: string;
  firmId: string;
  name: string;
  /** The first characters of the key, enough to recognise it in a list; the key itself is never stored. */
  keyPrefix: string;
  /** Items written before scopes existed have none: they are `full` keys (scopeOf). */
  scope?: ApiKeyScope;
  createdAt: string;
  revokedAt: string | null;
}

export interface ApiKeyLookup {
  firmId: string;
  keyId: string;
  name: string;
  scope: ApiKeyScope;
}

/** A stored key's scope: `full` when it has none (created before scopes existed). */
export const scopeOf = (item: { scope?: unknown }): ApiKeyScope =>
  item.scope === 'auditor' ? 'auditor' : 'full';

/** The key record and its hash lookup, created together. Only the SHA-256 hash of the key is stored. */
export function putApiKeyItems(deps: Deps, key: ApiKeyItem, keyHash: string): TransactItem[] {
  return [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.apiKey(key.firmId, key.id), ...key, keyHash },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.main,
        Item: {
          ...keys.apiKeyHash(keyHash),
          firmId: key.firmId,
          keyId: key.id,
          name: key.name,
          scope: scopeOf(key),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export async function createApiKey(deps: Deps, key: ApiKeyItem, keyHash: string): Promise<void> {
  await writeNew(deps, putApiKeyItems(deps, key, keyHash), `API key ${key.id}`);
}

/** Strongly consistent, so a revoked key stops working at once. */
export async function findApiKeyByHash(deps: Deps, keyHash: string): Promise<ApiKeyLookup | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.apiKeyHash(keyHash),
    ConsistentRead: true,
  });
  return Item
    ? {
        firmId: Item.firmId as string,
        keyId: Item.keyId as string,
        name: Item.name as string,
        scope: scopeOf(Item),
      }
    : null;
}

export async function listApiKeys(deps: Deps, firmId: string): Promise<ApiKeyItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':prefix', SK_PREFIX.apiKey) },
  });
  return items.map((item) => withoutKeys(item, ['keyHash']) as unknown as ApiKeyItem);
}

/**
 * Revokes a key: removes its hash lookup (so authentication fails from the next request on) and stamps
 * revokedAt on the record, which is kept for audit. False when the key is unknown or already revoked.
 */
export async function revokeApiKey(deps: Deps, firmId: string, keyId: string, at: string): Promise<boolean> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.apiKey(firmId, keyId),
    ConsistentRead: true,
  });
  if (!Item || Item.revokedAt) return false;
  // Not committed: a concurrent revocation got there first (or is under way).
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.apiKey(firmId, keyId),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND revokedAt = :null',
        ExpressionAttributeValues: { ':at': at, ':null': null },
      },
    },
    { Delete: { TableName: deps.tables.main, Key: keys.apiKeyHash(Item.keyHash as string) } },
  ]);
  return outcome.status === 'committed';
}
