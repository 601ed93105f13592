import { defineHandler, ok } from '../../shared/http/handler.js';
import { getIncident } from '../../shared/routes/incidents.js';
import { getFirmIncident } from '../../shared/services/incidents.js';

export const handler = defineHandler(getIncident, async ({ deps, principal, params }) =>
  ok(await getFirmIncident(deps, principal.firmId, params.id)),
);
