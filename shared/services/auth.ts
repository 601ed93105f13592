import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { hashApiKey, isWellFormedApiKey } from '../domain/auth/api-key-format.js';
import { acceptedAudiences } from '../domain/auth/audiences.js';
import type { Principal } from '../domain/auth/principal.js';
import { UnauthorizedError } from '../errors.js';
import { logger } from '../runtime/logger.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { findApiKeyByHash } from '../store/api-key-store.js';
import { activateUser, getUserByEmail, getUserBySubject } from '../store/user-store.js';

const jwksByUrl = new Map<string, JWTVerifyGetKey>();

function jwks(url: string): JWTVerifyGetKey {
  let set = jwksByUrl.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    jwksByUrl.set(url, set);
  }
  return set;
}

export interface Credentials {
  apiKey?: string;
  authorization?: string;
}

/**
 * What a user's first sign-in (a token whose subject no user is linked to yet) does. `link`: link the subject
 * and stamp activatedAt now (routes that write the main table anyway, and the user-activation worker).
 * `queue`: authenticate by e-mail and send the token to the user-activation worker, which verifies it again and
 * links it; so read routes hold no write on user items (issue 12, part 8).
 */
export type FirstSignIn = 'link' | 'queue';

/** What the user-activation queue carries: the bearer token, verified again by the worker. */
export interface ActivationMessage {
  token: string;
}

/**
 * Resolves the caller from exactly one credential: an API key (X-Service-Key) or a user's OIDC bearer token.
 * Every failure is the same 401 to the caller; the message says which credential was refused.
 */
export async function authenticate(
  deps: Deps,
  credentials: Credentials,
  firstSignIn: FirstSignIn = 'link',
): Promise<Principal> {
  const { apiKey, authorization } = credentials;
  if (apiKey && authorization)
    throw new UnauthorizedError('Send one credential: X-Service-Key or Authorization, not both');
  if (apiKey) return authenticateApiKey(deps, apiKey);
  if (authorization) return authenticateBearer(deps, authorization, firstSignIn);
  throw new UnauthorizedError('Missing credential: send X-Service-Key or Authorization: Bearer <token>');
}

async function authenticateApiKey(deps: Deps, key: string): Promise<Principal> {
  if (!isWellFormedApiKey(key)) throw new UnauthorizedError('Invalid API key');
  const found = await findApiKeyByHash(deps, hashApiKey(key));
  if (!found) throw new UnauthorizedError('Invalid API key');
  return { kind: 'apiKey', firmId: found.firmId, keyId: found.keyId, name: found.name, scope: found.scope };
}

async function authenticateBearer(
  deps: Deps,
  authorization: string,
  firstSignIn: FirstSignIn,
): Promise<Principal> {
  const match = /^Bearer\s+(\S+)$/i.exec(authorization);
  if (!match?.[1]) throw new UnauthorizedError('Authorization must be "Bearer <token>"');
  const { oidc } = deps;
  let claims;
  try {
    ({ payload: claims } = await jwtVerify(match[1], jwks(oidc.jwksUrl), {
      issuer: oidc.issuer,
      // One audience, or several separated by commas (the API's and the web console's app clients).
      audience: acceptedAudiences(oidc.audience),
      algorithms: ['RS256', 'ES256'],
      clockTolerance: 30,
      requiredClaims: ['sub', 'exp'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw new UnauthorizedError('Invalid or expired token');
    throw error;
  }
  const firmId = claims[oidc.firmClaim];
  const email = claims.email;
  if (typeof firmId !== 'string' || typeof email !== 'string' || typeof claims.sub !== 'string') {
    throw new UnauthorizedError(`Token lacks the email or ${oidc.firmClaim} claim`);
  }
  // A linked subject identifies the user; before the first sign-in the e-mail does.
  let user =
    (await getUserBySubject(deps, firmId, claims.sub)) ?? (await getUserByEmail(deps, firmId, email));
  if (!user || user.deactivatedAt) throw new UnauthorizedError('No active user for this token');
  if (user.subject && user.subject !== claims.sub)
    throw new UnauthorizedError('Token subject does not match the user');
  if (!user.subject) {
    if (firstSignIn === 'link') user = await activateUser(deps, user, claims.sub, isoNow(deps.clock));
    else await requestActivation(deps, match[1]);
  }
  return {
    kind: 'user',
    firmId,
    userId: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    fcaRef: user.fcaRef,
  };
}

/**
 * Hands a first sign-in to the user-activation worker. Best effort: the caller is already authenticated (by
 * e-mail, as every request before the link is), and a failed send is simply retried by their next request.
 */
async function requestActivation(deps: Deps, token: string): Promise<void> {
  const message: ActivationMessage = { token };
  try {
    await deps.queue.send('user-activation', message);
  } catch (error) {
    logger.warn('Queueing a first sign-in failed; the next request retries', { error: error as Error });
  }
}

/**
 * The user-activation worker's step: verifies the queued token again (a message alone proves nothing) and
 * links its subject to the user, as a first sign-in on a writing route would. False when the token no longer
 * verifies (expired, user deactivated or linked to another subject): nothing to retry.
 */
export async function activateFromToken(deps: Deps, message: ActivationMessage): Promise<boolean> {
  try {
    await authenticateBearer(deps, `Bearer ${message.token}`, 'link');
    return true;
  } catch (error) {
    if (error instanceof UnauthorizedError) return false;
    throw error;
  }
}
