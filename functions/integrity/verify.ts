import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { ENV, intEnv } from '../../shared/runtime/config.js';
import * as integrity from '../../shared/routes/integrity.js';
import { startVerification, type VerifyLimits } from '../../shared/services/integrity/verification-runs.js';

/** API Gateway gives an integration 30 s; the call checks what fits in 20 s and queues the rest. */
const limits: VerifyLimits = {
  inlineMaxRecords: intEnv(ENV.verifyInlineMaxRecords, 20_000),
  budgetMs: 20_000,
};

export const handler = defineHandler(integrity.verify, async ({ deps, principal }) =>
  ok(await startVerification(deps, principal, limits)),
);
