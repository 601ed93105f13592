import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';

/**
 * Optimistic concurrency for items that carry a `version` counter: an update of the named attributes only
 * (other flows' attributes on the item survive), conditional on the version read, which it increments.
 */
export function versionedUpdateItem(
  deps: Deps,
  key: { pk: string; sk: string },
  readVersion: number,
  change: Record<string, unknown>,
): TransactItem {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':read': readVersion, ':next': readVersion + 1 };
  const sets = ['#version = :next'];
  Object.entries(change).forEach(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    sets.push(`#f${i} = :v${i}`);
  });
  return {
    Update: {
      TableName: deps.tables.main,
      Key: key,
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(pk) AND #version = :read',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * Commits writes in one transaction; false when a condition failed or a concurrent transaction touched the
 * same items (the caller re-reads and decides again).
 */
export async function commitConditional(deps: Deps, items: TransactItem[]): Promise<boolean> {
  try {
    await deps.db.send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (error) {
    if (
      error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some(
        (r) => r.Code === 'ConditionalCheckFailed' || r.Code === 'TransactionConflict',
      )
    )
      return false;
    throw error;
  }
}
