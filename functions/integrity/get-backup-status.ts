import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { backupStatus } from '../../shared/services/integrity/backup-status.js';

export const handler = defineHandler(integrity.backupStatus, async ({ deps, principal }) =>
  ok(await backupStatus(deps, principal.firmId)),
);
