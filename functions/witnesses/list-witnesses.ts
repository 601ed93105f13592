import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as witnesses from '../../shared/routes/witnesses.js';
import { firmWitnesses } from '../../shared/services/witnesses.js';

export const handler = defineHandler(witnesses.listWitnesses, async ({ deps, principal }) =>
  ok(await firmWitnesses(deps, principal.firmId)),
);
