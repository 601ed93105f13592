import { defineHandler } from '../../shared/http/handler.js';
import { noContent } from '../../shared/http/response.js';
import * as users from '../../shared/routes/users.js';
import { logger } from '../../shared/runtime/logger.js';
import { releaseDeactivatedReviewer } from '../../shared/services/review/deactivation.js';
import { deactivateFirmUser } from '../../shared/services/users.js';

export const handler = defineHandler(users.deactivateUser, async ({ deps, principal, params }) => {
  const { changed, activeJobId } = await deactivateFirmUser(deps, principal, params.id);
  // The job the deactivated user still holds goes back to its queue and is routed again. Deactivation is
  // already committed; if this fails, a repeated DELETE (idempotent) returns the job again and retries.
  if (activeJobId) {
    logger.info('Re-routing the job of a deactivated user', { userId: params.id, activeJobId, changed });
    await releaseDeactivatedReviewer(deps, principal.firmId, params.id, activeJobId);
  }
  return noContent();
});
