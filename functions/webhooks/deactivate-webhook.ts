import { defineHandler } from '../../shared/http/handler.js';
import { noContent } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { deactivate } from '../../shared/services/webhooks.js';

export const handler = defineHandler(webhooks.deactivateWebhook, async ({ deps, principal, params }) => {
  await deactivate(deps, principal.firmId, params.id);
  return noContent();
});
