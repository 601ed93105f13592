import { defineHandler } from '../../shared/http/handler.js';
import { noContent } from '../../shared/http/response.js';
import { deactivateWebhook } from '../../shared/routes/webhooks.js';
import { deactivate } from '../../shared/services/webhooks.js';

export const handler = defineHandler(deactivateWebhook, async ({ deps, principal, params }) => {
  await deactivate(deps, principal.firmId, params.id);
  return noContent();
});
