import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { restoreRecord } from '../../shared/services/integrity/restore.js';

export const handler = defineHandler(integrity.restore, async ({ deps, principal, params }) =>
  ok(await restoreRecord(deps, principal, params.id)),
);
