import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { getStats } from '../../shared/routes/firm.js';
import { firmStats } from '../../shared/services/firm.js';

export const handler = defineHandler(getStats, async ({ deps, principal }) =>
  ok(await firmStats(deps, principal.firmId)),
);
