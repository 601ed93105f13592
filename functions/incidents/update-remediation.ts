import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { changeRemediation } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.updateRemediation, async ({ deps, principal, params, body }) =>
  ok(await changeRemediation(deps, principal, params.id, params.remediationId, body)),
);
