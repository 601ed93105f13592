import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../domain/auth/principal.js';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, ValidationError } from '../errors.js';
import type { RouteDef } from '../routes/route.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { runWithClaim, type IdempotencyClaim } from '../store/idempotency-context.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  settleCommittedIdempotencyKey,
  type StoredAnswer,
} from '../store/idempotency-store.js';
import { toErrorResponse } from './errors.js';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  parseIdempotencyKey,
  requestFingerprint,
} from './idempotency-key.js';
import { takesIdempotencyKey } from '../routes/route.js';

type Response = APIGatewayProxyStructuredResultV2;

/**
 * Largest answer body kept for a replay: a DynamoDB item holds at most 400 KB, the key's own attributes and
 * the headers included. A larger answer (none of today's writes comes near) is not kept (see finish).
 */
export const MAX_STORED_ANSWER_BYTES = 300 * 1024;

/**
 * Runs an authenticated, validated POST or PATCH under its `Idempotency-Key` (issue 19, part 3), or as it is
 * without one. `run` answers the request; whatever it throws becomes its error answer here, so the outcome
 * (answer kept, key released, key left committed) is decided with the answer in hand.
 *
 * 1. Claim the key (shared/store/idempotency-store.ts): a replay, 422, 409 end here, before anything runs.
 * 2. Run with the claim in context: the request's main write (a ledger append, or its one conditional write of
 *    the main table) commits the key's mark (COMMITTED) in its own transaction (idempotency-context.ts).
 * 3. Keep the answer (COMPLETED) when it is a 2xx or a deterministic 4xx and may be kept; else release the key
 *    if nothing was written, or leave it COMMITTED (a retry is then told what was written, never re-run).
 */
export async function runIdempotently(
  deps: Deps,
  request: { route: RouteDef; event: APIGatewayProxyEventV2; principal: Principal | null; body: unknown },
  run: () => Promise<{ response: Response; replayable: boolean }>,
): Promise<Response> {
  const { route, event, principal } = request;
  const requestId = event.requestContext.requestId;
  const parsed = takesIdempotencyKey(route)
    ? parseIdempotencyKey(event.headers?.[IDEMPOTENCY_KEY_HEADER])
    : ({ kind: 'absent' } as const);
  if (parsed.kind === 'malformed')
    throw new ValidationError('Invalid Idempotency-Key header', [
      { path: 'headers.Idempotency-Key', message: parsed.message },
    ]);
  if (parsed.kind === 'absent' || !principal) return (await run()).response;

  const claimed = await claimIdempotencyKey(deps, {
    firmId: principal.firmId,
    key: parsed.key,
    fingerprint: requestFingerprint({
      method: route.method,
      path: event.rawPath,
      query: event.rawQueryString,
      body: request.body,
    }),
  });
  switch (claimed.kind) {
    case 'mismatch':
      throw new IdempotencyKeyReusedError(
        'This Idempotency-Key was already used for another request (method, path or body) in the last 24 h: use a new key',
      );
    case 'in-progress':
      throw new IdempotencyKeyInUseError(
        'A request with this Idempotency-Key is still in progress: retry after Retry-After seconds',
        claimed.retryAfterSeconds,
      );
    case 'committed':
      throw new IdempotencyKeyInUseError(answerLost(claimed.recordId), null);
    case 'completed':
      return replay(claimed.answer, requestId);
    case 'claimed':
      return finish(deps, claimed.claim, await runWithClaim(claimed.claim, run), requestId);
  }
}

async function finish(
  deps: Deps,
  claim: IdempotencyClaim,
  ran: Awaited<ReturnType<typeof runWithClaim<{ response: Response; replayable: boolean }>>>,
  requestId: string,
): Promise<Response> {
  const { outcome, carried } = ran;
  const response =
    outcome.status === 'fulfilled' ? outcome.value.response : toErrorResponse(outcome.reason, requestId);
  const replayable = outcome.status === 'fulfilled' ? outcome.value.replayable : true;
  const answer = storedAnswer(response);
  try {
    if (replayable && answer && isKept(answer.statusCode)) await completeIdempotencyKey(deps, claim, answer);
    // Nothing carried the key: nothing was written, a retry may run afresh.
    else if (!carried) await releaseIdempotencyKey(deps, claim);
    // Else the key stays COMMITTED: a retry is answered 409 with what was written, never run again.
    else await settleCommittedIdempotencyKey(deps, claim);
  } catch (error) {
    // The answer stands; the key is kept IN_PROGRESS until its lock runs out, or COMMITTED.
    logger.error('Keeping the answer of an Idempotency-Key failed', { requestId, error: error as Error });
  }
  return response;
}

/**
 * Which answers are kept for replay: 2xx and the 4xx a retry of the same request would get again. Not kept
 * (the key is released, unless a write carried it): 408, 409 (a conflict with the state, which may change; and
 * this mechanism's own 409), 425, 429 (a limit) and every 5xx.
 */
export const isKept = (status: number): boolean =>
  (status >= 200 && status < 300) ||
  (status >= 400 && status < 500 && ![408, 409, 425, 429].includes(status));

function storedAnswer(response: Response): StoredAnswer | null {
  if (response.body !== undefined && Buffer.byteLength(response.body) > MAX_STORED_ANSWER_BYTES) return null;
  const { 'x-request-id': _requestId, ...headers } = Object.fromEntries(
    Object.entries(response.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return {
    statusCode: response.statusCode ?? 200,
    headers,
    ...(response.body !== undefined ? { body: response.body } : {}),
  };
}

function replay(answer: StoredAnswer, requestId: string): Response {
  return {
    statusCode: answer.statusCode,
    headers: { ...answer.headers, 'x-request-id': requestId, [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
    ...(answer.body !== undefined ? { body: answer.body } : {}),
  };
}

function answerLost(recordId: string | null): string {
  const what = recordId ? `ledger record ${recordId} was committed` : 'its write was committed';
  return (
    `The request first sent with this Idempotency-Key was carried out (${what}) but its answer was not ` +
    'kept: it will not run again; read the result instead of retrying'
  );
}
