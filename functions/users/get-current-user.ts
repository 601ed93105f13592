import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as users from '../../shared/routes/users.js';
import { currentUser } from '../../shared/services/users.js';

export const handler = defineHandler(users.getCurrentUser, async ({ deps, principal }) =>
  ok(await currentUser(deps, principal)),
);
