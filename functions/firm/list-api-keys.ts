import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { activeApiKeys } from '../../shared/services/api-keys.js';

export const handler = defineHandler(firm.listApiKeys, async ({ deps, principal }) =>
  ok(await activeApiKeys(deps, principal.firmId)),
);
