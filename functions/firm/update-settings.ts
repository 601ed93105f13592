import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as firm from '../../shared/routes/firm.js';
import { changeSettings } from '../../shared/services/firm.js';

export const handler = defineHandler(firm.updateSettings, async ({ deps, principal, body }) =>
  ok(await changeSettings(deps, principal, body)),
);
