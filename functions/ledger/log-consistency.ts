import { defineHandler } from '../../shared/http/handler.js';
import { plainText } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { consistency } from '../../shared/services/log-proofs.js';

export const handler = defineHandler(ledger.getLogConsistency, async ({ deps, principal, query }) =>
  plainText(await consistency(deps, principal.firmId, query.from, query.to)),
);
