import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { updateUser } from '../../shared/routes/users.js';
import { changeUser } from '../../shared/services/users.js';

export const handler = defineHandler(updateUser, async ({ deps, principal, params, body }) =>
  ok(await changeUser(deps, principal, params.id, body)),
);
