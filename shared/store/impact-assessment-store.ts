import type { ActorSummary } from '../domain/governance/actors.js';
import type { ApprovedSet, IaStatus, Outcomes } from '../domain/governance/impact-assessments.js';
import type { Deps } from '../runtime/deps.js';
import { send, withoutKeys } from './dynamo.js';
import {
  assessmentListAttributes,
  firmListQuery,
  LIST_ATTRIBUTES,
  listPartition,
} from './list-attributes.js';
import type { ListQuery } from './list-page.js';
import { MAIN_LISTS } from './tables.js';
import { keys, SK_PREFIX } from './keys.js';
import { writeConditionally, writeNew, type TransactItem } from './conditional-write.js';
import { versionedUpdateItem } from './versioned-writes.js';

/** An impact assessment: `FIRM#<firmId>` / `IA#<assessmentId>` in the main table. */
export interface ImpactAssessmentItem {
  id: string;
  firmId: string;
  useCase: string;
  description: string;
  modelProvider: string | null;
  modelVersion: string | null;
  templateVersion: number;
  outcomes: Outcomes;
  status: IaStatus;
  createdById: string | null;
  createdBy: ActorSummary;
  signedOffById: string | null;
  signedOffBy: ActorSummary | null;
  signedOffAt: string | null;
  createdAt: string;
  updatedAt: string;
  ledgerRecordId: string | null;
  /** Written by the certificates flow after approval, never by this store's updates. */
  certificateId: string | null;
  /** Optimistic-concurrency counter of this store's writes; not part of the interface. */
  version: number;
}

/** Fields the assessment flows change (never certificateId, which another flow owns). */
export type AssessmentChange = Partial<
  Pick<
    ImpactAssessmentItem,
    | 'useCase'
    | 'description'
    | 'modelProvider'
    | 'modelVersion'
    | 'outcomes'
    | 'status'
    | 'signedOffById'
    | 'signedOffBy'
    | 'signedOffAt'
    | 'updatedAt'
    | 'ledgerRecordId'
  >
>;

export async function putNewAssessment(deps: Deps, item: ImpactAssessmentItem): Promise<void> {
  await writeNew(
    deps,
    [
      {
        Put: {
          TableName: deps.tables.main,
          Item: {
            ...keys.impactAssessment(item.firmId, item.id),
            ...item,
            ...assessmentListAttributes(item),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ],
    `impact assessment ${item.id}`,
  );
}

export async function getAssessment(
  deps: Deps,
  firmId: string,
  assessmentId: string,
): Promise<ImpactAssessmentItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.impactAssessment(firmId, assessmentId),
    ConsistentRead: true,
  });
  return Item ? assessmentOf(Item) : null;
}

/** The firm's assessments newest first (createdAt, then id), as a list query (issue 14). */
export function assessmentListQuery(deps: Deps, firmId: string): ListQuery {
  return firmListQuery(deps, firmId, {
    index: MAIN_LISTS,
    partition: listPartition.assessments(firmId),
    skPrefix: SK_PREFIX.impactAssessment,
  });
}

/** An assessment item as stored, without its storage attributes. */
export const assessmentOf = (item: Record<string, unknown>) =>
  withoutKeys(item, LIST_ATTRIBUTES) as unknown as ImpactAssessmentItem;

/**
 * An update of the named fields only (so a certificateId written meanwhile survives), conditional on the
 * version read: a concurrent change makes it fail, and the caller re-reads and re-decides.
 */
export function assessmentUpdateItem(
  deps: Deps,
  current: Pick<ImpactAssessmentItem, 'firmId' | 'id' | 'version'>,
  change: AssessmentChange,
): TransactItem {
  return versionedUpdateItem(
    deps,
    keys.impactAssessment(current.firmId, current.id),
    current.version,
    change,
  );
}

/** Applies an update on its own; false when the version moved or a transaction held the item (re-read). */
export async function updateAssessment(
  deps: Deps,
  current: Pick<ImpactAssessmentItem, 'firmId' | 'id' | 'version'>,
  change: AssessmentChange,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [assessmentUpdateItem(deps, current, change)]);
  return outcome.status === 'committed';
}

/**
 * The approved-assessment index of one model, `FIRM#<firmId>` / `IAMODEL#<provider>#<version>`:
 * `approved` maps every APPROVED (not superseded) assessment covering the model to its approval instant, and
 * `assessmentId` names the most recently approved of them. It exists exactly while `approved` is non-empty.
 *
 * Writers: approval (adds, in the approval's transaction) and supersede (removes, in the supersede's
 * transaction), each conditional on the index version read. Reader: the job submission gate
 * (shared/services/review/submission.ts), one strongly consistent GetItem per submission.
 */
export interface ModelIndex {
  approved: ApprovedSet;
  /** null: no index item; 0: an item written without a version (tests' seeds of an older shape). */
  version: number | null;
}

export async function findApprovedAssessment(
  deps: Deps,
  firmId: string,
  provider: string,
  version: string,
): Promise<{ assessmentId: string } | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.impactAssessmentModel(firmId, provider, version),
    ConsistentRead: true,
  });
  return Item && typeof Item.assessmentId === 'string' ? { assessmentId: Item.assessmentId } : null;
}

export async function getModelIndex(
  deps: Deps,
  firmId: string,
  provider: string,
  version: string,
): Promise<ModelIndex> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.impactAssessmentModel(firmId, provider, version),
    ConsistentRead: true,
  });
  if (!Item) return { approved: {}, version: null };
  const approved =
    (Item.approved as ApprovedSet | undefined) ??
    (typeof Item.assessmentId === 'string' ? { [Item.assessmentId]: '' } : {});
  return { approved, version: typeof Item.version === 'number' ? Item.version : 0 };
}

/**
 * Writes the index as `approved` (deletes it when empty), conditional on the version read, for a
 * transaction. `assessmentId` is the latest approval.
 */
export function modelIndexWriteItem(
  deps: Deps,
  firmId: string,
  model: { provider: string; version: string },
  read: ModelIndex,
  approved: ApprovedSet,
  latest: string | null,
): TransactItem {
  const Key = keys.impactAssessmentModel(firmId, model.provider, model.version);
  const condition =
    read.version === null
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : read.version === 0
        ? {
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#version)',
            ExpressionAttributeNames: { '#version': 'version' },
          }
        : {
            ConditionExpression: '#version = :read',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':read': read.version },
          };
  if (latest === null) return { Delete: { TableName: deps.tables.main, Key, ...condition } };
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...Key, assessmentId: latest, approved, version: (read.version ?? 0) + 1 },
      ...condition,
    },
  };
}
