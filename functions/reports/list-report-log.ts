import { defineHandler } from '../../shared/http/handler.js';
import { arrayAnswer } from '../../shared/http/link.js';
import * as reportLog from '../../shared/routes/report-log.js';
import { firmReportLog } from '../../shared/services/report-log.js';

export const handler = defineHandler(reportLog.listReportLog, async ({ deps, principal, query, event }) =>
  arrayAnswer(event, await firmReportLog(deps, principal.firmId, query)),
);
