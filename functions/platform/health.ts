import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { isoNow } from '../../shared/ports/clock.js';
import * as platform from '../../shared/routes/platform.js';

export const handler = defineHandler(platform.health, async ({ deps }) =>
  ok({ status: 'ok', timestamp: isoNow(deps.clock) }),
);
