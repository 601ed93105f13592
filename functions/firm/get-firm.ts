import { defineHandler, ok } from '../../shared/http/handler.js';
import { getFirm } from '../../shared/routes/firm.js';
import { loadFirm, presentFirm } from '../../shared/services/firm.js';

export const handler = defineHandler(getFirm, async ({ deps, principal }) =>
  ok(presentFirm(await loadFirm(deps, principal.firmId))),
);
