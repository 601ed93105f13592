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
