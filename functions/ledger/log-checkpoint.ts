import { defineHandler } from '../../shared/http/handler.js';
import { plainText } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { latestCosignedNote } from '../../shared/services/log-served-checkpoint.js';

export const handler = defineHandler(ledger.getLogCheckpoint, async ({ deps, principal }) =>
  plainText(await latestCosignedNote(deps, principal.firmId)),
);
