import { defineHandler, noContent } from '../../shared/http/handler.js';
import { deactivateUser } from '../../shared/routes/users.js';
import { logger } from '../../shared/runtime/logger.js';
import { deactivateFirmUser } from '../../shared/services/users.js';

export const handler = defineHandler(deactivateUser, async ({ deps, principal, params }) => {
  const { changed, activeJobId } = await deactivateFirmUser(deps, principal, params.id);
  // The hook for review routing: the job the deactivated user still holds is to be re-routed here.
  if (activeJobId) logger.info('Deactivated user holds a job', { userId: params.id, activeJobId, changed });
  return noContent();
});
