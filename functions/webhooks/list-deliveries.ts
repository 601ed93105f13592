import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { deliveryLog } from '../../shared/services/webhooks.js';

export const handler = defineHandler(
  webhooks.listWebhookDeliveries,
  async ({ deps, principal, params, query }) =>
    ok(await deliveryLog(deps, principal.firmId, params.id, query)),
);
