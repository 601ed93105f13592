import { defineHandler } from '../../shared/http/handler.js';
import { unavailableResult } from '../../shared/http/errors.js';
import { ok } from '../../shared/http/response.js';
import { isoNow } from '../../shared/ports/clock.js';
import * as platform from '../../shared/routes/platform.js';
import { checkHealth } from '../../shared/services/health.js';

export const handler = defineHandler(platform.health, async ({ deps }) => {
  const report = await checkHealth(deps);
  const body = { ...report, timestamp: isoNow(deps.clock) };
  return report.status === 'ok' ? ok(body) : unavailableResult(body);
});
