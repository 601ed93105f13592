import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { changeIncident } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.updateIncident, async ({ deps, principal, params, body }) =>
  ok(await changeIncident(deps, principal, params.id, body)),
);
