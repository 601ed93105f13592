import { effectiveSettings } from '../../shared/domain/firm/settings.js';
import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { loadFirm } from '../../shared/services/firm.js';

export const handler = defineHandler(firm.getSettings, async ({ deps, principal }) =>
  ok(effectiveSettings((await loadFirm(deps, principal.firmId)).settings)),
);
