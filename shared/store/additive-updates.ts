import type { TransactItem } from './conditional-write.js';

/**
 * Additive updates: an `Update` whose whole expression is `ADD <name> <number>, …` with no condition, such as a
 * counter shard's delta (counter-store.ts, counterDeltaItem). They commute and never fail by themselves, so the
 * updates of several appends to one item can be summed into one update of a batch's transaction (DynamoDB
 * refuses one item twice in a transaction) instead of sending those appends to separate batches: with a firm's
 * incident counters in two shards, a group commit of incidents held at most two appends.
 */

/** `ADD #a :x, #b :y`: nothing else (no SET, REMOVE or DELETE clause). */
const ADD_ONLY = /^\s*ADD\s+([#:\w]+\s+:\w+\s*(?:,\s*[#:\w]+\s+:\w+\s*)*)$/;

/** The attribute names and the numbers an additive update adds to them, or null when the item is not one. */
export function additiveTerms(item: TransactItem): Map<string, number> | null {
  const update = item.Update;
  if (!update || update.ConditionExpression || !update.UpdateExpression) return null;
  const match = ADD_ONLY.exec(update.UpdateExpression);
  if (!match) return null;
  const terms = new Map<string, number>();
  for (const term of match[1]!.split(',')) {
    const [nameToken, valueToken] = term.trim().split(/\s+/) as [string, string];
    const name = nameToken.startsWith('#') ? update.ExpressionAttributeNames?.[nameToken] : nameToken;
    const value = update.ExpressionAttributeValues?.[valueToken] as unknown;
    if (name === undefined || typeof value !== 'number' || terms.has(name)) return null;
    terms.set(name, value);
  }
  return terms;
}

/** Is the item an additive update (see additiveTerms)? */
export function isAdditive(item: TransactItem): boolean {
  return additiveTerms(item) !== null;
}

/**
 * One additive update with the sums of `items`, all additive updates of the same item (table and key of the
 * first), their attributes in the order first seen.
 */
export function mergeAdditive(items: readonly TransactItem[]): TransactItem {
  if (items.length === 1) return items[0]!;
  const sums = new Map<string, number>();
  for (const item of items) {
    const terms = additiveTerms(item);
    if (!terms) throw new TypeError('mergeAdditive: not an additive update');
    for (const [name, value] of terms) sums.set(name, (sums.get(name) ?? 0) + value);
  }
  const { TableName, Key } = items[0]!.Update!;
  const names: Record<string, string> = {};
  const values: Record<string, number> = {};
  const clauses: string[] = [];
  [...sums].forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    clauses.push(`#a${i} :a${i}`);
  });
  return {
    Update: {
      TableName,
      Key,
      UpdateExpression: `ADD ${clauses.join(', ')}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}
