import { defineHandler } from '../../shared/http/handler.js';
import { plainText } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { logVerifierKeys } from '../../shared/services/log-vkeys.js';

export const handler = defineHandler(ledger.getLogVkeys, async ({ deps, principal }) =>
  plainText(await logVerifierKeys(deps, principal.firmId)),
);
