import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { backupStatus } from '../../shared/routes/integrity.js';
import { backupStatus as status } from '../../shared/services/integrity/backup-status.js';

export const handler = defineHandler(backupStatus, async ({ deps, principal }) =>
  ok(await status(deps, principal.firmId)),
);
