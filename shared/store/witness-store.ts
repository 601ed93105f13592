import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/*
 * The witnesses of a firm's verifiable log (issue 31, "Submitting"), main table: the ones the firm registered
 * (WITNESS#<key ID>) and, for each witness the service submits to (the firm's and the platform's), what it knows
 * of it (WITNESSSTATE#<key ID>). Every write goes through writeConditionally.
 */

export interface WitnessItem {
  firmId: string;
  /** The witness key ID, 8 lowercase hex. */
  keyId: string;
  name: string;
  vkey: string;
  /** The submission prefix URL: the service POSTs `<url>/add-checkpoint`. */
  url: string;
  createdAt: string;
}

export interface WitnessStateItem {
  firmId: string;
  keyId: string;
  /** The size of the last checkpoint submitted (its outcome is below): an older submission never overwrites it. */
  submittedSize: number;
  /** The tree size the witness last acknowledged (cosigned, or named in a 409); 0 before any. */
  acknowledgedSize: number;
  /** The latest checkpoint size it cosigned (its cosignature is stored), and when. */
  cosignedSize: number | null;
  cosignedAt: string | null;
  /** `cosigned`, `size` (a 409 taught its size), `refused` (422), `unavailable`, `rejected`, `bad-cosignature`. */
  lastOutcome: string;
  lastError: string | null;
  lastAttemptAt: string;
  /** True from a 422 until its next cosignature: the alarm is raised once per such episode. */
  refusing: boolean;
  refusedAt: string | null;
  refusedSize: number | null;
}

export type PutWitnessOutcome = 'created' | 'exists';

export async function putWitness(deps: Deps, witness: WitnessItem): Promise<PutWitnessOutcome> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.witness(witness.firmId, witness.keyId), ...witness },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (outcome.status === 'committed') return 'created';
  if (outcome.status === 'condition-failed') return 'exists';
  throw new Error(`Registering witness ${witness.keyId} met a concurrent transaction`);
}

/** The firm's registered witnesses, by key ID (strongly consistent: a submission sees a removal at once). */
export async function listWitnesses(deps: Deps, firmId: string): Promise<WitnessItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.witness),
    },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as WitnessItem);
}

/** Removes a registered witness and what the service knew of it; false when the firm has no such witness. */
export async function deleteWitness(deps: Deps, firmId: string, keyId: string): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Delete: {
        TableName: deps.tables.main,
        Key: keys.witness(firmId, keyId),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    { Delete: { TableName: deps.tables.main, Key: keys.witnessState(firmId, keyId) } },
  ]);
  if (outcome.status === 'committed') return true;
  if (outcome.status === 'condition-failed') return false;
  throw new Error(`Removing witness ${keyId} met a concurrent transaction`);
}

export async function readWitnessStates(deps: Deps, firmId: string): Promise<Map<string, WitnessStateItem>> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.witnessState),
    },
    ConsistentRead: true,
  });
  return new Map(
    items.map((item) => [item.keyId as string, withoutKeys(item) as unknown as WitnessStateItem]),
  );
}

export async function readWitnessState(
  deps: Deps,
  firmId: string,
  keyId: string,
): Promise<WitnessStateItem | undefined> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.witnessState(firmId, keyId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as unknown as WitnessStateItem) : undefined;
}

/** The outcome of one submission, as recorded. */
export interface SubmissionOutcome {
  submittedSize: number;
  acknowledgedSize: number;
  outcome: string;
  error: string | null;
  at: string;
  /** A cosignature of `submittedSize` was stored: the refusing episode, if any, ends. */
  cosigned: boolean;
}

/**
 * Records a submission's outcome, unless a submission of a larger checkpoint was recorded meanwhile (false then:
 * its outcome is the newer truth).
 */
export async function recordSubmission(
  deps: Deps,
  firmId: string,
  keyId: string,
  s: SubmissionOutcome,
): Promise<boolean> {
  const cosigned = s.cosigned
    ? ', cosignedSize = :submitted, cosignedAt = :at, refusing = :false'
    : ', cosignedSize = if_not_exists(cosignedSize, :null), cosignedAt = if_not_exists(cosignedAt, :null)' +
      ', refusing = if_not_exists(refusing, :false)';
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.witnessState(firmId, keyId),
        UpdateExpression:
          'SET firmId = :firm, keyId = :key, submittedSize = :submitted, acknowledgedSize = :ack, ' +
          'lastOutcome = :outcome, lastError = :error, lastAttemptAt = :at, ' +
          'refusedAt = if_not_exists(refusedAt, :null), refusedSize = if_not_exists(refusedSize, :null)' +
          cosigned,
        ConditionExpression: 'attribute_not_exists(pk) OR submittedSize <= :submitted',
        ExpressionAttributeValues: {
          ':firm': firmId,
          ':key': keyId,
          ':submitted': s.submittedSize,
          ':ack': s.acknowledgedSize,
          ':outcome': s.outcome,
          ':error': s.error,
          ':at': s.at,
          ':null': null,
          ':false': false,
        },
      },
    },
  ]);
  if (outcome.status === 'committed') return true;
  if (outcome.status === 'condition-failed') return false;
  throw new Error(`Recording a submission to witness ${keyId} met a concurrent transaction`);
}

/**
 * The write that starts a refusing episode: it commits only when the witness is not refusing already, so the
 * alarm's ledger record (LOG_WITNESS_REFUSED) is written once per episode however many 422s follow.
 */
export function startRefusalItem(
  deps: Deps,
  firmId: string,
  keyId: string,
  refusal: { size: number; at: string },
): TransactItem {
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.witnessState(firmId, keyId),
      UpdateExpression:
        'SET firmId = :firm, keyId = :key, refusing = :true, refusedAt = :at, refusedSize = :size',
      ConditionExpression: 'attribute_not_exists(refusing) OR refusing = :false',
      ExpressionAttributeValues: {
        ':firm': firmId,
        ':key': keyId,
        ':true': true,
        ':false': false,
        ':at': refusal.at,
        ':size': refusal.size,
      },
    },
  };
}
