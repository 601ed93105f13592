import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as integrity from '../../shared/routes/integrity.js';
import { missingRecord } from '../../shared/services/integrity/discrepancy.js';

export const handler = defineHandler(integrity.missing, async ({ deps, principal, params }) =>
  ok(await missingRecord(deps, principal.firmId, params.sequenceNumber)),
);
