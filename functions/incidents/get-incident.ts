import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { getFirmIncident } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.getIncident, async ({ deps, principal, params }) =>
  ok(await getFirmIncident(deps, principal.firmId, params.id)),
);
