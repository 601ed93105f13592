import type { Plan } from '../domain/firm/plans.js';
import type { FirmSettings } from '../domain/firm/settings.js';
import type { Deps } from '../runtime/deps.js';
import { send, withoutKeys } from './dynamo.js';
import { keys } from './keys.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';

export interface FirmItem {
  id: string;
  name: string;
  frnNumber: string;
  plan: Plan;
  createdAt: string;
  /** Only the settings the firm has set; defaults fill the rest. */
  settings: Partial<FirmSettings>;
  /** Optimistic-concurrency version, incremented by every settings write. */
  version: number;
}

export async function getFirm(deps: Deps, firmId: string): Promise<FirmItem | null> {
  const { Item } = await send(deps.db, 'Get', { TableName: deps.tables.main, Key: keys.firm(firmId) });
  return Item ? (withoutKeys(Item) as FirmItem) : null;
}

export function putFirmItem(deps: Deps, firm: FirmItem): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...keys.firm(firm.id), ...firm },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The settings write, conditional on the version the caller read (lost updates become retries). */
export function settingsUpdateItem(
  deps: Deps,
  firm: FirmItem,
  settings: Partial<FirmSettings>,
): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.firm(firm.id),
      UpdateExpression: 'SET settings = :settings, version = :next',
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: {
        ':settings': settings,
        ':next': firm.version + 1,
        ':version': firm.version,
      },
    },
  };
}

/** The settings write on its own; false when the version moved or a transaction was under way (re-read). */
export async function updateSettings(
  deps: Deps,
  firm: FirmItem,
  settings: Partial<FirmSettings>,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [settingsUpdateItem(deps, firm, settings)]);
  return outcome.status === 'committed';
}

/**
 * Every firm's id, sorted. A Scan of the main table filtered on the firm items: O(table), for operator
 * backfills only (`ledgerctl backfill counters` without --firm), never for a request.
 */
export async function scanFirmIds(deps: Deps): Promise<string[]> {
  const ids: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await send(deps.db, 'Scan', {
      TableName: deps.tables.main,
      FilterExpression: 'sk = :firm AND begins_with(pk, :prefix)',
      ExpressionAttributeValues: { ':firm': 'FIRM', ':prefix': 'FIRM#' },
      ProjectionExpression: 'pk',
      ExclusiveStartKey: startKey,
    });
    for (const item of page.Items ?? []) ids.push(String(item.pk).slice('FIRM#'.length));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return ids.sort();
}
