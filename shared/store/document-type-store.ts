import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DocumentType } from '../domain/document-types/document-type.js';
import type { Deps } from '../runtime/deps.js';
import { queryAll, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';

/** A firm's own document type, or its override of a platform default: `FIRM#<firmId>`, `DOCTYPE#<slug>`. */
export type DocumentTypeItem = DocumentType;

export async function getDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
): Promise<DocumentTypeItem | null> {
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.main,
      Key: keys.documentType(firmId, slug),
      ConsistentRead: true,
    }),
  );
  return Item ? (withoutKeys(Item) as DocumentTypeItem) : null;
}

/** The firm's stored document types (custom types and overrides), by slug; strongly consistent. */
export async function listDocumentTypes(deps: Deps, firmId: string): Promise<DocumentTypeItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ':prefix': SK_PREFIX.documentType },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as DocumentTypeItem);
}

/** Creates the firm's item for a slug; false when the firm already has one (the slug is taken). */
export async function insertDocumentType(deps: Deps, item: DocumentTypeItem): Promise<boolean> {
  try {
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.main,
        Item: { ...keys.documentType(item.firmId, item.slug), ...item },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export type DocumentTypeChange = Partial<Pick<DocumentTypeItem, 'name' | 'checklistItems'>>;

/** Changes the firm's item for a slug, only if it exists; the item after the change, or null. */
export async function updateDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
  change: DocumentTypeChange,
  updatedAt: string,
): Promise<DocumentTypeItem | null> {
  const fields = Object.entries({ ...change, updatedAt }).filter(([, value]) => value !== undefined);
  try {
    const { Attributes } = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.main,
        Key: keys.documentType(firmId, slug),
        UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: Object.fromEntries(fields.map(([name], i) => [`#f${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(fields.map(([, value], i) => [`:v${i}`, value])),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? (withoutKeys(Attributes) as DocumentTypeItem) : null;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return null;
    throw error;
  }
}
