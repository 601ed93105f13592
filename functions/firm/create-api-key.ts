import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { issueApiKey } from '../../shared/services/api-keys.js';

// The new key is shown once and stored only hashed, so its answer is never kept for an Idempotency-Key replay.
export const handler = defineHandler(firm.createApiKey, async ({ deps, principal, body }) => ({
  ...created(await issueApiKey(deps, principal.firmId, body.name, body.scope)),
  replayable: false,
}));
