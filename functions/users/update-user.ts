import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as users from '../../shared/routes/users.js';
import { changeUser } from '../../shared/services/users.js';

export const handler = defineHandler(users.updateUser, async ({ deps, principal, params, body }) =>
  ok(await changeUser(deps, principal, params.id, body)),
);
