import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { listFirmIncidents } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.listIncidents, async ({ deps, principal }) =>
  ok(await listFirmIncidents(deps, principal.firmId)),
);
