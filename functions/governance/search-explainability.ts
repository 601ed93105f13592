import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { searchExplainability } from '../../shared/routes/governance-reports.js';
import { searchExplainability as search } from '../../shared/services/governance-reports.js';

export const handler = defineHandler(searchExplainability, async ({ deps, principal, query }) =>
  ok(await search(deps, principal.firmId, query.clientReference)),
);
