/**
 * Small per-job marker items that let the model registry and the vulnerability report read a bounded number of
 * items (issue 14), written in the submission's transaction (and by the counters' recount):
 * - `MSEEN#<provider>#<version>#<submittedAt>#<jobId>` (provider and version URI-encoded): the model's first
 *   and last sighting are the first and last item of its prefix (two Limit-1 queries);
 * - `VFLAGGED#<submittedAt>#<jobId>`: a job with a vulnerability flag; the newest N are one Limit-N query.
 * Markers never change after they are written (submittedAt, the model and the flags of a job are fixed).
 */
import { declaredModel } from '../domain/review/jobs.js';
import type { Deps } from '../runtime/deps.js';
import type { TransactItem } from './conditional-write.js';
import { send } from './dynamo.js';
import { keys } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

const MODEL_SEEN = 'MSEEN#';
const FLAGGED = 'VFLAGGED#';
const modelPrefix = (provider: string, version: string) =>
  `${MODEL_SEEN}${encodeURIComponent(provider)}#${encodeURIComponent(version)}#`;

export interface MarkedJob {
  id: string;
  firmId: string;
  submittedAt: string;
  aiContext: unknown;
  vulnerabilityFlags: readonly string[];
}

/** The job's marker items (none for a job without a declared model and without flags). */
export function jobMarkerItems(job: MarkedJob): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  const model = declaredModel(job.aiContext);
  if (model)
    items.push({
      pk: keys.firmPk(job.firmId),
      sk: `${modelPrefix(model.provider, model.version)}${job.submittedAt}#${job.id}`,
      submittedAt: job.submittedAt,
    });
  if ((job.vulnerabilityFlags ?? []).length > 0)
    items.push({
      pk: keys.firmPk(job.firmId),
      sk: `${FLAGGED}${job.submittedAt}#${job.id}`,
      jobId: job.id,
    });
  return items;
}

/** The markers as unconditional puts, for the submission's transaction (a rewrite is harmless). */
export function jobMarkerPutItems(deps: Deps, job: MarkedJob): TransactItem[] {
  return jobMarkerItems(job).map((Item) => ({ Put: { TableName: deps.tables.main, Item } }));
}

async function edge(deps: Deps, prefix: string, pk: string, forward: boolean) {
  const { Items } = await send(deps.db, 'Query', {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: { ':pk': pk, ...skPrefixValues(':prefix', prefix) },
    ScanIndexForward: forward,
    Limit: 1,
    ConsistentRead: true,
  });
  return (Items?.[0]?.submittedAt as string | undefined) ?? null;
}

/** When a model was first and last seen on a submitted job (two queries of one item each). */
export async function modelSeenRange(
  deps: Deps,
  firmId: string,
  provider: string,
  version: string,
): Promise<{ firstSeenAt: string | null; lastSeenAt: string | null }> {
  const prefix = modelPrefix(provider, version);
  const pk = keys.firmPk(firmId);
  const [firstSeenAt, lastSeenAt] = await Promise.all([
    edge(deps, prefix, pk, true),
    edge(deps, prefix, pk, false),
  ]);
  return { firstSeenAt, lastSeenAt };
}

/** Ids of the `limit` most recently submitted flagged jobs, newest first (ties: larger id first). */
export async function recentFlaggedJobIds(deps: Deps, firmId: string, limit: number): Promise<string[]> {
  const { Items } = await send(deps.db, 'Query', {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':prefix', FLAGGED) },
    ScanIndexForward: false,
    Limit: limit,
    ConsistentRead: true,
  });
  return (Items ?? []).map((item) => item.jobId as string);
}
