import { defineHandler } from '../../shared/http/handler.js';
import { noContent } from '../../shared/http/response.js';
import * as witnesses from '../../shared/routes/witnesses.js';
import { removeWitness } from '../../shared/services/witnesses.js';

export const handler = defineHandler(witnesses.deleteWitness, async ({ deps, principal, params }) => {
  await removeWitness(deps, principal.firmId, params.keyId);
  return noContent();
});
