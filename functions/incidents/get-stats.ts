import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { firmIncidentStats } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.getIncidentStats, async ({ deps, principal }) =>
  ok(await firmIncidentStats(deps, principal.firmId)),
);
