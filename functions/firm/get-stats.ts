import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { firmStats } from '../../shared/services/firm.js';

export const handler = defineHandler(firm.getStats, async ({ deps, principal }) =>
  ok(await firmStats(deps, principal.firmId)),
);
