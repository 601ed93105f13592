import { defineHandler } from '../../shared/http/handler.js';
import { noContent } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { revokeKey } from '../../shared/services/api-keys.js';

export const handler = defineHandler(firm.revokeApiKey, async ({ deps, principal, params }) => {
  await revokeKey(deps, principal.firmId, params.keyId);
  return noContent();
});
