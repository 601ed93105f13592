import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { loadFirm, presentFirm } from '../../shared/services/firm.js';

export const handler = defineHandler(firm.getFirm, async ({ deps, principal }) =>
  ok(presentFirm(await loadFirm(deps, principal.firmId))),
);
