import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { issueApiKey } from '../../shared/services/api-keys.js';

export const handler = defineHandler(firm.createApiKey, async ({ deps, principal, body }) =>
  created(await issueApiKey(deps, principal.firmId, body.name)),
);
