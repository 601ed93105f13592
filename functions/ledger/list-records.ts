import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { listRecords } from '../../shared/services/ledger-queries.js';

export const handler = defineHandler(ledger.listRecords, async ({ deps, principal, query }) =>
  ok(await listRecords(deps, principal.firmId, query)),
);
