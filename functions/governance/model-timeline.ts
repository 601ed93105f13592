import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { modelTimeline } from '../../shared/routes/governance-reports.js';
import { modelTimeline as timeline } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(modelTimeline, async ({ deps, principal, params, query }) =>
  ok(await timeline(deps, principal.firmId, params.provider, params.version, query)),
);
