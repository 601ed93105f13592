/**
 * Which of a firm's ledger positions have a database row or a pending outbox entry, by key only (issue 14):
 * what the backup reconciliation walks and what the backup status reads for records appended since.
 */
import type { Deps } from '../runtime/deps.js';
import { send } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/** The sequence numbers 1..upTo that have a database row, ascending, page by page (keys only). */
export async function* rowSequences(deps: Deps, firmId: string, upTo: number): AsyncGenerator<number[]> {
  if (upTo < 1) return;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(deps.db, 'Query', {
      TableName: deps.tables.ledger,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
      ExpressionAttributeValues: {
        ':pk': keys.firmPk(firmId),
        ':first': keys.ledgerRecord(firmId, 1).sk,
        ':last': keys.ledgerRecord(firmId, upTo).sk,
      },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    yield (page.Items ?? []).map((item) => Number(String(item.sk).slice(SK_PREFIX.record.length)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/**
 * Sequence numbers above `after` whose outbox entry is still there (immutable copy not confirmed), ascending,
 * at most `limit`: normally none, or the few of a batch being archived right now.
 */
export async function pendingOutboxSequences(
  deps: Deps,
  firmId: string,
  after: number,
  limit: number,
): Promise<number[]> {
  const { Items = [] } = await send(deps.db, 'Query', {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :first AND :last',
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ':first': keys.ledgerOutbox(firmId, after + 1).sk,
      ':last': `${SK_PREFIX.outbox}~`,
    },
    ProjectionExpression: 'sk',
    ConsistentRead: true,
    Limit: limit,
  });
  return Items.map((item) => Number(String(item.sk).slice(SK_PREFIX.outbox.length)));
}

/** Every sequence number of the firm whose outbox entry is still there, ascending, page by page (keys only). */
export async function* outboxSequencePages(deps: Deps, firmId: string): AsyncGenerator<number[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(deps.db, 'Query', {
      TableName: deps.tables.ledger,
      KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
      ExpressionAttributeValues: {
        ':pk': keys.firmPk(firmId),
        ...skPrefixValues(':prefix', SK_PREFIX.outbox),
      },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    yield (page.Items ?? []).map((item) => Number(String(item.sk).slice(SK_PREFIX.outbox.length)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
