import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { findVerification } from '../../shared/services/integrity/verification-status.js';

export const handler = defineHandler(integrity.getVerification, async ({ deps, principal, params }) =>
  ok(await findVerification(deps, principal.firmId, params.id)),
);
