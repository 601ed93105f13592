import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as incidents from '../../shared/routes/incidents.js';
import { addRemediation } from '../../shared/services/incidents.js';

export const handler = defineHandler(incidents.createRemediation, async ({ deps, principal, params, body }) =>
  created(await addRemediation(deps, principal, params.id, body)),
);
