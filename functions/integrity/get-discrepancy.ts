import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { discrepancy } from '../../shared/routes/integrity.js';
import { discrepancy as compare } from '../../shared/services/integrity/discrepancy.js';

export const handler = defineHandler(discrepancy, async ({ deps, principal, params }) =>
  ok(await compare(deps, principal.firmId, params.id)),
);
