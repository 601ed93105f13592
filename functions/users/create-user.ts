import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as users from '../../shared/routes/users.js';
import { inviteUser } from '../../shared/services/users.js';

export const handler = defineHandler(users.createUser, async ({ deps, principal, body }) =>
  created(await inviteUser(deps, principal, body)),
);
