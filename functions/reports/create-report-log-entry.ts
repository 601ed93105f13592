import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import { createReportLogEntry } from '../../shared/routes/report-log.js';
import { logReport } from '../../shared/services/report-log.js';

export const handler = defineHandler(createReportLogEntry, async ({ deps, principal, body }) =>
  created(await logReport(deps, principal, body)),
);
