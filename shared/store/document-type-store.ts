import type { DocumentType } from '../domain/document-types/document-type.js';
import type { Deps } from '../runtime/deps.js';
import {
  updateConditionally,
  writeConditionally,
  type NotCommitted,
  type WriteOutcome,
} from './conditional-write.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/** A firm's own document type, or its override of a platform default: `FIRM#<firmId>`, `DOCTYPE#<slug>`. */
export type DocumentTypeItem = DocumentType;

export async function getDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
): Promise<DocumentTypeItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.documentType(firmId, slug),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as DocumentTypeItem) : null;
}

/** The firm's stored document types (custom types and overrides), by slug; strongly consistent. */
export async function listDocumentTypes(deps: Deps, firmId: string): Promise<DocumentTypeItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.documentType),
    },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as DocumentTypeItem);
}

/**
 * Creates the firm's item for a slug; `condition-failed` when the firm already has one (the slug is taken),
 * `conflict` when a concurrent write to it was under way.
 */
export function insertDocumentType(deps: Deps, item: DocumentTypeItem): Promise<WriteOutcome> {
  return writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.documentType(item.firmId, item.slug), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
}

export type DocumentTypeChange = Partial<Pick<DocumentTypeItem, 'name' | 'checklistItems'>>;

/**
 * Changes the firm's item for a slug, only if it exists: the item after the change, or `condition-failed`
 * when the firm has none.
 */
export async function updateDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
  change: DocumentTypeChange,
  updatedAt: string,
): Promise<{ status: 'committed'; item: DocumentTypeItem } | NotCommitted> {
  const fields = Object.entries({ ...change, updatedAt }).filter(([, value]) => value !== undefined);
  const outcome = await updateConditionally(deps, {
    TableName: deps.tables.main,
    Key: keys.documentType(firmId, slug),
    UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
  });
  if (outcome.status !== 'committed') return outcome;
  return { status: 'committed', item: withoutKeys(outcome.item) as unknown as DocumentTypeItem };
}
