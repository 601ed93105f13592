import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { getFirm } from '../../shared/routes/firm.js';
import { loadFirm, presentFirm } from '../../shared/services/firm.js';

export const handler = defineHandler(getFirm, async ({ deps, principal }) =>
  ok(presentFirm(await loadFirm(deps, principal.firmId))),
);
