import { defineHandler } from '../../shared/http/handler.js';
import { redeliverWebhookDelivery } from '../../shared/routes/webhooks.js';
import { redeliver } from '../../shared/services/webhooks.js';

export const handler = defineHandler(redeliverWebhookDelivery, async ({ deps, principal, params }) => ({
  statusCode: 202,
  body: await redeliver(deps, principal.firmId, params.id, params.deliveryId),
}));
