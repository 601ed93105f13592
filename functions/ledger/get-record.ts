import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { findRecord } from '../../shared/services/ledger-queries.js';

export const handler = defineHandler(ledger.getRecord, async ({ deps, principal, params }) =>
  ok(await findRecord(deps, principal.firmId, params.id)),
);
