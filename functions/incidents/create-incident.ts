import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { logIncident } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.createIncident, async ({ deps, principal, body }) =>
  created(await logIncident(deps, principal, body)),
);
