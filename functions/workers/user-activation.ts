import { logger } from '../../shared/runtime/logger.js';
import { activateFromToken, type ActivationMessage } from '../../shared/services/auth.js';
import { queueWorker } from '../../shared/workers/handler.js';

/**
 * Consumes the user-activation queue: links a user's first sign-in (activatedAt, subject) that a read-only
 * route queued, after verifying the token again. The one function granted those writes. Idempotent (an
 * already linked user is left as is); a token that no longer verifies is dropped, other failures retried.
 * The message carries a bearer token: never log it.
 */
export const handler = queueWorker<ActivationMessage>(
  async (deps, message) => {
    if (!(await activateFromToken(deps, message))) logger.warn('A queued first sign-in no longer verifies');
  },
  { failureLog: 'Linking a first sign-in failed' },
);
