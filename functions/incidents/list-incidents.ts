import { defineHandler } from '../../shared/http/handler.js';
import { arrayAnswer } from '../../shared/http/link.js';
import * as incidents from '../../shared/routes/incidents.js';
import { listFirmIncidents } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.listIncidents, async ({ deps, principal, query, event }) =>
  arrayAnswer(event, await listFirmIncidents(deps, principal.firmId, query)),
);
