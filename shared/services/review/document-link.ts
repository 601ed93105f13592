/** The job's document for a reader: a short-lived URL of its immutable copy (issue 16). */
import type { Principal } from '../../domain/auth/principal.js';
import { NotFoundError, ForbiddenError } from '../../errors.js';
import type { Deps } from '../../runtime/deps.js';
import { loadJob, userCaller } from './acting.js';

/** How long a document URL works: long enough to open it, short enough not to travel. */
export const DOCUMENT_URL_SECONDS = 300;
const IMMUTABLE_PREFIX = 'immutable://';

export interface DocumentLink {
  url: string;
  expiresAt: string;
  contentType: string;
}

/**
 * The assigned reviewer reads the document they decide on; LEAD_REVIEWER and FIRM_ADMIN users read any of the
 * firm's (escalations, oversight). Another reviewer of the firm is refused (403); another firm's job is 404.
 */
export async function jobDocumentLink(
  deps: Deps,
  principal: Principal,
  jobId: string,
): Promise<DocumentLink> {
  const user = userCaller(principal);
  const job = await loadJob(deps, user.firmId, jobId);
  const mayRead =
    user.role === 'FIRM_ADMIN' || user.role === 'LEAD_REVIEWER' || job.assignedReviewerId === user.userId;
  if (!mayRead)
    throw new ForbiddenError(
      "Only the job's assigned reviewer, lead reviewers and administrators read its document",
    );
  if (!job.documentUrl.startsWith(IMMUTABLE_PREFIX)) throw new NotFoundError('Document not found');
  const key = job.documentUrl.slice(IMMUTABLE_PREFIX.length);
  const info = await deps.objects.head('immutable', key);
  if (!info) throw new NotFoundError('Document not found');
  const { url, expiresAt } = await deps.objects.presignGet('immutable', key, {
    expiresInSeconds: DOCUMENT_URL_SECONDS,
  });
  return { url, expiresAt, contentType: info.contentType };
}
