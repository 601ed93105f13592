import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as review from '../../shared/routes/review.js';
import { setOwnAvailability } from '../../shared/services/review/reviewer-queue.js';

export const handler = defineHandler(review.setAvailability, async ({ deps, principal, body }) =>
  ok(await setOwnAvailability(deps, principal, body.isAvailable)),
);
