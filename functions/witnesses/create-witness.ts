import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as witnesses from '../../shared/routes/witnesses.js';
import { registerWitness } from '../../shared/services/witnesses.js';

export const handler = defineHandler(witnesses.createWitness, async ({ deps, principal, body }) =>
  created(await registerWitness(deps, principal.firmId, body)),
);
