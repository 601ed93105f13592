import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { exportRecordEvidence } from '../../shared/services/evidence-export.js';

export const handler = defineHandler(ledger.getRecordEvidence, async ({ deps, principal, params }) =>
  ok(await exportRecordEvidence(deps, principal.firmId, params.id)),
);
