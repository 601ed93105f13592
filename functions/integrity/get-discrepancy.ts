import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { discrepancy } from '../../shared/services/integrity/discrepancy.js';

export const handler = defineHandler(integrity.discrepancy, async ({ deps, principal, params }) =>
  ok(await discrepancy(deps, principal.firmId, params.id)),
);
