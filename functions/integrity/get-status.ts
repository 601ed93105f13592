import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { integrityStatus } from '../../shared/services/integrity/verification-status.js';

export const handler = defineHandler(integrity.integrityStatus, async ({ deps, principal }) =>
  ok(await integrityStatus(deps, principal.firmId)),
);
