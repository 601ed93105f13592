import { defineHandler } from '../../shared/http/handler.js';
import { plainText } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { recordProof } from '../../shared/services/log-proofs.js';

export const handler = defineHandler(ledger.getRecordProof, async ({ deps, principal, params, query }) =>
  plainText(await recordProof(deps, principal.firmId, params.id, query.treeSize)),
);
