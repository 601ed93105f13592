import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as webhooks from '../../shared/routes/webhooks.js';
import { firmWebhooks } from '../../shared/services/webhooks.js';

export const handler = defineHandler(webhooks.listWebhooks, async ({ deps, principal }) =>
  ok(await firmWebhooks(deps, principal.firmId)),
);
