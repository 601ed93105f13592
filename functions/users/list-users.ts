import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as users from '../../shared/routes/users.js';
import { firmUsers } from '../../shared/services/users.js';

export const handler = defineHandler(users.listUsers, async ({ deps, principal }) =>
  ok(await firmUsers(deps, principal.firmId)),
);
