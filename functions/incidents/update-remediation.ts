import { defineHandler, ok } from '../../shared/http/handler.js';
import { updateRemediation } from '../../shared/routes/incidents.js';
import { changeRemediation } from '../../shared/services/incidents.js';

export const handler = defineHandler(updateRemediation, async ({ deps, principal, params, body }) =>
  ok(await changeRemediation(deps, principal, params.id, params.remediationId, body)),
);
