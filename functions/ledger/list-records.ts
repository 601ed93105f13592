import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { listRecords } from '../../shared/routes/ledger.js';
import { listRecords as list } from '../../shared/services/ledger-queries.js';

export const handler = defineHandler(listRecords, async ({ deps, principal, query }) =>
  ok(await list(deps, principal.firmId, query)),
);
