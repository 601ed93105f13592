import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { exportEvidence } from '../../shared/services/evidence-export.js';

export const handler = defineHandler(ledger.exportEvidence, async ({ deps, principal, query }) =>
  ok(await exportEvidence(deps, principal.firmId, query)),
);
