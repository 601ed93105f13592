import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { registerWebhook } from '../../shared/services/webhooks.js';

export const handler = defineHandler(webhooks.createWebhook, async ({ deps, principal, body }) =>
  created(await registerWebhook(deps, principal.firmId, body)),
);
