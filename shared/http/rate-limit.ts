import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../domain/auth/principal.js';
import { refillSeconds, type BucketView, type WritePolicy } from '../domain/rate-limit/token-bucket.js';
import { RateLimitedError } from '../errors.js';
import type { RouteDef } from '../routes/route.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import {
  firmWriteSlotGiveBack,
  releaseFirmWriteSlot,
  takeFirmWriteToken,
  type WriteAdmission,
} from '../services/write-limits.js';
import { runHoldingSlot } from '../store/write-slot-context.js';
import { heldRefusal, holdKey, holdRefusal } from './refusal-holds.js';

/** The policy's name in RateLimit-Policy and RateLimit: the firm's ledger-writing requests. */
export const WRITE_POLICY_NAME = 'firm-writes';

/** A ledger-writing route: one that may append records (it signs), and so spends the shared KMS quota. */
export const isLimitedRoute = (route: RouteDef): boolean => route.permissions.sign === true;

/** The headers of the request's answer, kept from the check until the answer (success or error) is built. */
const headersOf = new WeakMap<object, Record<string, string>>();
/**
 * The slot an admitted request holds under its firm's concurrency cap, kept until its answer is built; `given`
 * once a ledger append of the request gave it back in its own transaction.
 */
const slotsOf = new WeakMap<object, { firmId: string; admission: WriteAdmission; given: boolean }>();

/**
 * A refusal this instance holds for the request's credential on this route (./refusal-holds.ts): 429 at once,
 * before authentication, with no DynamoDB call, and the same answer as the refusal held (the tokens it told,
 * seconds until the hold ends). Run by defineHandler first; nothing happens for any other request.
 */
export function refuseHeldCredential(deps: Deps, route: RouteDef, event: APIGatewayProxyEventV2): void {
  if (!isLimitedRoute(route)) return;
  const key = holdKey(route, event);
  const now = deps.clock.now().getTime() * 1000;
  const held = key === undefined ? undefined : heldRefusal(key, now);
  if (!held) return;
  const seconds = Math.max(1, Math.ceil((held.until - now) / 1_000_000));
  refuse(
    event,
    held.policy,
    { allowed: false, remaining: held.remaining, nextTokenSeconds: seconds },
    held.refusedBy,
  );
}

/**
 * The per-firm limits of ledger-writing requests (docs/architecture.md §5, "Fair per-firm limits"), run by
 * defineHandler after authentication and before the body is read: takes a token from the firm's bucket and,
 * under a concurrency cap, a slot with it (one conditional UpdateItem), or refuses with RATE_LIMITED (429,
 * Retry-After), nothing written. A refusal, by the bucket or by the cap, is held for the credential until its
 * Retry-After (refuseHeldCredential; services/write-limits.ts says how long). Either way the answer carries
 * RateLimit-Policy and RateLimit. A slot taken is given back by the request's first ledger append
 * (runWithWriteSlot), or else by releaseWriteSlot once the answer is built. No limit configured, a public route
 * or a route that does not write the ledger: nothing happens, no DynamoDB call. Worker-side appends never come
 * here: the limit is on a firm's requests.
 */
export async function limitFirmWrites(
  deps: Deps,
  route: RouteDef,
  principal: Principal | null,
  event: APIGatewayProxyEventV2,
): Promise<void> {
  if (!principal || !isLimitedRoute(route)) return;
  const taken = await takeFirmWriteToken(deps, principal.firmId);
  if (!taken) return;
  if (taken.view.allowed) {
    headersOf.set(event, rateLimitHeaders(taken.policy, taken.view));
    if (taken.slot) slotsOf.set(event, { firmId: principal.firmId, admission: taken, given: false });
    return;
  }
  const refusedBy = taken.refusedBy ?? 'rate';
  const key = holdKey(route, event);
  if (key !== undefined && taken.holdUntil !== null)
    holdRefusal(
      key,
      { policy: taken.policy, refusedBy, remaining: taken.view.remaining, until: taken.holdUntil },
      taken.now,
    );
  refuse(event, taken.policy, taken.view, refusedBy);
}

function refuse(
  event: APIGatewayProxyEventV2,
  policy: WritePolicy,
  view: BucketView,
  refusedBy: 'rate' | 'concurrency',
): never {
  headersOf.set(event, rateLimitHeaders(policy, view));
  throw new RateLimitedError(
    refusedBy === 'rate'
      ? `Too many ledger-writing requests for this firm (a burst of ${policy.burst}, then ${policy.ratePerSecond}/s); retry after ${view.nextTokenSeconds} s`
      : `Too many ledger-writing requests of this firm in flight (at most ${policy.concurrency} at once); retry after ${view.nextTokenSeconds} s`,
    view.nextTokenSeconds,
  );
}

/**
 * Runs the request's work with its slot's give-back in context, so that its first ledger append gives the slot
 * back in its own transaction (store/write-slot-context.ts); without a slot, just runs it.
 */
export async function runWithWriteSlot<T>(
  deps: Deps,
  event: APIGatewayProxyEventV2,
  fn: () => Promise<T>,
): Promise<T> {
  const held = slotsOf.get(event);
  const giveBack = held && firmWriteSlotGiveBack(deps, held.firmId, held.admission);
  if (!held || !giveBack) return fn();
  const { outcome, given } = await runHoldingSlot(giveBack, fn);
  held.given = given;
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

/**
 * Gives back the slot the request holds under its firm's concurrency cap, if no append of it did, once its
 * answer (success or error) is built; at most once per request. A failure is logged, not answered: the slot's
 * lease runs out.
 */
export async function releaseWriteSlot(deps: Deps, event: APIGatewayProxyEventV2): Promise<void> {
  const held = slotsOf.get(event);
  if (!held) return;
  slotsOf.delete(event);
  if (held.given) return;
  try {
    await releaseFirmWriteSlot(deps, held.firmId, held.admission);
  } catch (error) {
    logger.warn('Could not give back a write slot; its lease will run out', { error: String(error) });
  }
}

/** The answer with the request's RateLimit headers, when it went through the check. */
export function withRateLimitHeaders(
  event: APIGatewayProxyEventV2,
  response: APIGatewayProxyStructuredResultV2,
): APIGatewayProxyStructuredResultV2 {
  const headers = headersOf.get(event);
  return headers ? { ...response, headers: { ...response.headers, ...headers } } : response;
}

/**
 * draft-ietf-httpapi-ratelimit-headers-11 (structured-field lists of items): the policy, `q` tokens per `w`
 * seconds (the bucket and the time it takes to fill), and the service limit now, `r` whole tokens left and `t`
 * seconds until the next one (on a 429 the same as Retry-After).
 */
export function rateLimitHeaders(policy: WritePolicy, view: BucketView): Record<string, string> {
  return {
    'ratelimit-policy': `"${WRITE_POLICY_NAME}";q=${policy.burst};w=${refillSeconds(policy)}`,
    ratelimit: `"${WRITE_POLICY_NAME}";r=${view.remaining};t=${view.nextTokenSeconds}`,
  };
}
