import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { listUsers } from '../../shared/routes/users.js';
import { firmUsers } from '../../shared/services/users.js';

export const handler = defineHandler(listUsers, async ({ deps, principal }) =>
  ok(await firmUsers(deps, principal.firmId)),
);
