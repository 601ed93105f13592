import { defineHandler, ok } from '../../shared/http/handler.js';
import { listApiKeys } from '../../shared/routes/firm.js';
import { activeApiKeys } from '../../shared/services/api-keys.js';

export const handler = defineHandler(listApiKeys, async ({ deps, principal }) =>
  ok(await activeApiKeys(deps, principal.firmId)),
);
