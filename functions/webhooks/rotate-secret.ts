import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { rotateSecret } from '../../shared/services/webhooks.js';

export const handler = defineHandler(
  webhooks.rotateWebhookSecret,
  async ({ deps, principal, params, body }) =>
    ok(await rotateSecret(deps, principal.firmId, params.id, body.overlapSeconds)),
);
