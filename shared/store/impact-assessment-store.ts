import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../runtime/deps.js';
import { keys } from './keys.js';

/**
 * The approved-assessment index: one item per AI model, `FIRM#<firmId>` / `IAMODEL#<provider>#<version>`,
 * holding `{assessmentId}` of the firm's APPROVED impact assessment for that model provider and version.
 *
 * Writers: the impact-assessment approval flow puts the item in the same transaction that moves the
 * assessment to APPROVED, and supersede deletes it in the transaction that moves it to SUPERSEDED (those
 * endpoints belong to another issue; until they land nothing but tests writes it). Readers: the job
 * submission gate (shared/services/review-jobs.ts), one strongly consistent GetItem per submission.
 */
export async function findApprovedAssessment(
  deps: Deps,
  firmId: string,
  provider: string,
  version: string,
): Promise<{ assessmentId: string } | null> {
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.main,
      Key: keys.impactAssessmentModel(firmId, provider, version),
      ConsistentRead: true,
    }),
  );
  return Item && typeof Item.assessmentId === 'string' ? { assessmentId: Item.assessmentId } : null;
}
