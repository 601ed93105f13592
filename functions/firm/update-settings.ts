import { defineHandler, ok } from '../../shared/http/handler.js';
import { updateSettings } from '../../shared/routes/firm.js';
import { changeSettings } from '../../shared/services/firm.js';

export const handler = defineHandler(updateSettings, async ({ deps, principal, body }) =>
  ok(await changeSettings(deps, principal, body)),
);
