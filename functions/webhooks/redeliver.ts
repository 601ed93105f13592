import { defineHandler } from '../../shared/http/handler.js';
import { accepted } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { redeliver } from '../../shared/services/webhooks.js';

export const handler = defineHandler(webhooks.redeliverWebhookDelivery, async ({ deps, principal, params }) =>
  accepted(await redeliver(deps, principal.firmId, params.id, params.deliveryId)),
);
