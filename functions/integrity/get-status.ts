import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { integrityStatus } from '../../shared/routes/integrity.js';
import { integrityStatus as status } from '../../shared/services/integrity/verification-status.js';

export const handler = defineHandler(integrityStatus, async ({ deps, principal }) =>
  ok(await status(deps, principal.firmId)),
);
