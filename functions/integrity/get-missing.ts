import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { missing } from '../../shared/routes/integrity.js';
import { missingRecord } from '../../shared/services/integrity/discrepancy.js';

export const handler = defineHandler(missing, async ({ deps, principal, params }) =>
  ok(await missingRecord(deps, principal.firmId, params.sequenceNumber)),
);
