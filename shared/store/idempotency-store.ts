import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../ledger/hashing.js';
import { ENV, intEnv } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { send } from './dynamo.js';
import { writeConditionally, type WriteOutcome } from './conditional-write.js';
import { IDEMPOTENCY_STATE, type IdempotencyClaim } from './idempotency-context.js';
import { keys } from './keys.js';
import { TTL_ATTRIBUTE } from './tables.js';

/** How long a key answers for its first request: 24 h, then the table's TTL removes it. */
export const IDEMPOTENCY_KEY_RETENTION_SECONDS = 24 * 60 * 60;
/**
 * How long a claim holds the key before a retry may take it over (IDEMPOTENCY_LOCK_SECONDS, default 60): well
 * beyond any request (API Gateway answers within 30 s, an append waiting for its sequencer gives up after 25 s),
 * so only a crashed request's claim runs out. Only liveness depends on it: a live request whose claim was taken
 * over fails its write alone (the mark's token condition), so a shorter lock never writes twice.
 */
export const idempotencyLockSeconds = (): number => Math.max(1, intEnv(ENV.idempotencyLockSeconds, 60));

/** The answer kept for a replay: what the first request answered, as sent (request id header aside). */
export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
}

interface KeyItem {
  state: (typeof IDEMPOTENCY_STATE)[keyof typeof IDEMPOTENCY_STATE];
  token: string;
  fingerprint: string;
  lockedUntil: number;
  recordId?: string | null;
  answer?: StoredAnswer;
  [TTL_ATTRIBUTE]: number;
}

export type ClaimResult =
  | { readonly kind: 'claimed'; readonly claim: IdempotencyClaim }
  /** Another request (method, path or body) already used the key. */
  | { readonly kind: 'mismatch' }
  /** The first request answered: its answer. */
  | { readonly kind: 'completed'; readonly answer: StoredAnswer }
  /** The first request is still running (its lock holds for `retryAfterSeconds`). */
  | { readonly kind: 'in-progress'; readonly retryAfterSeconds: number }
  /** The first request's write committed, but its answer was not kept. */
  | { readonly kind: 'committed'; readonly recordId: string | null };

const CLAIM_ATTEMPTS = 4;
/** A request answers in well under a second or two: come back soon, not when its lock would run out. */
const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/**
 * Claims a firm's key for a request with `fingerprint`: a new item (IN_PROGRESS, a random token, locked for
 * IDEMPOTENCY_LOCK_SECONDS) when the key is unused or expired, or the item of a request whose lock ran out
 * (taken over with a new token, so that request's late writes fail); else what the key's first request left.
 */
export async function claimIdempotencyKey(
  deps: Deps,
  request: { firmId: string; key: string; fingerprint: string },
): Promise<ClaimResult> {
  const keyHash = sha256Hex(request.key);
  const itemKey = keys.idempotencyKey(request.firmId, keyHash);
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    const now = deps.clock.now().getTime();
    const claim: IdempotencyClaim = { firmId: request.firmId, keyHash, token: randomUUID() };
    const fresh: KeyItem & Record<string, unknown> = {
      ...itemKey,
      firmId: request.firmId,
      state: IDEMPOTENCY_STATE.inProgress,
      token: claim.token,
      fingerprint: request.fingerprint,
      lockedUntil: now + idempotencyLockSeconds() * 1000,
      createdAt: new Date(now).toISOString(),
      [TTL_ATTRIBUTE]: Math.floor(now / 1000) + IDEMPOTENCY_KEY_RETENTION_SECONDS,
    };
    const created = await writeConditionally(deps, [
      {
        Put: {
          TableName: deps.tables.main,
          Item: fresh,
          // The TTL removes an expired item within days, not at once: until then it counts as absent.
          ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :nowSeconds',
          ExpressionAttributeNames: { '#ttl': TTL_ATTRIBUTE },
          ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000) },
        },
      },
    ]);
    if (created.status === 'committed') return { kind: 'claimed', claim };
    const { Item } = await send(deps.db, 'Get', {
      TableName: deps.tables.main,
      Key: itemKey,
      ConsistentRead: true,
    });
    const existing = Item as KeyItem | undefined;
    if (!existing || existing[TTL_ATTRIBUTE] <= Math.floor(now / 1000)) continue;
    // The SDK retries a Put whose answer was lost (a reset connection, a 5xx): the retry then fails its condition
    // on its own first attempt, which committed. The token (fresh for each attempt) says the claim is this one.
    if (existing.token === claim.token) return { kind: 'claimed', claim };
    if (existing.fingerprint !== request.fingerprint) return { kind: 'mismatch' };
    if (existing.state === IDEMPOTENCY_STATE.completed && existing.answer)
      return { kind: 'completed', answer: existing.answer };
    // Still running (its write may have committed, its answer is on its way): ask the client to come back.
    if (existing.lockedUntil > now && existing.state !== IDEMPOTENCY_STATE.completed)
      return { kind: 'in-progress', retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
    if (existing.state === IDEMPOTENCY_STATE.committed)
      return { kind: 'committed', recordId: existing.recordId ?? null };
    // The first request's lock ran out (its instance died): take the key over with a new token.
    const takenOver = await writeConditionally(deps, [
      {
        Put: {
          TableName: deps.tables.main,
          Item: { ...fresh, [TTL_ATTRIBUTE]: existing[TTL_ATTRIBUTE] },
          ConditionExpression: '#state = :inProgress AND #token = :token',
          ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
          ExpressionAttributeValues: {
            ':inProgress': IDEMPOTENCY_STATE.inProgress,
            ':token': existing.token,
          },
        },
      },
    ]);
    if (takenOver.status === 'committed') return { kind: 'claimed', claim };
  }
  // Every attempt met another claim of the same key at the same moment.
  return { kind: 'in-progress', retryAfterSeconds: IN_PROGRESS_RETRY_AFTER_SECONDS };
}

/**
 * Keeps the answer for replays (COMPLETED), conditional on the claim still being this request's: from
 * IN_PROGRESS (nothing written, or nothing that carries the key) or COMMITTED (its write carried it).
 */
export async function completeIdempotencyKey(
  deps: Deps,
  claim: IdempotencyClaim,
  answer: StoredAnswer,
): Promise<boolean> {
  return settledDespiteConflicts(() =>
    writeConditionally(deps, [
      {
        Update: {
          TableName: deps.tables.main,
          Key: keys.idempotencyKey(claim.firmId, claim.keyHash),
          UpdateExpression: 'SET #state = :completed, answer = :answer',
          ConditionExpression: '#token = :token AND #state IN (:inProgress, :committed)',
          ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
          ExpressionAttributeValues: {
            ':completed': IDEMPOTENCY_STATE.completed,
            ':answer': answer,
            ':token': claim.token,
            ':inProgress': IDEMPOTENCY_STATE.inProgress,
            ':committed': IDEMPOTENCY_STATE.committed,
          },
        },
      },
    ]),
  );
}

/**
 * Gives the key back (the request wrote nothing and its answer is not to be kept: a 5xx, a 409, a 429), so a
 * retry runs afresh. Conditional on IN_PROGRESS and the claim's token: a key whose write committed is never
 * released, whatever answered.
 */
export async function releaseIdempotencyKey(deps: Deps, claim: IdempotencyClaim): Promise<boolean> {
  return settledDespiteConflicts(() =>
    writeConditionally(deps, [
      {
        Delete: {
          TableName: deps.tables.main,
          Key: keys.idempotencyKey(claim.firmId, claim.keyHash),
          ConditionExpression: '#token = :token AND #state = :inProgress',
          ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
          ExpressionAttributeValues: { ':token': claim.token, ':inProgress': IDEMPOTENCY_STATE.inProgress },
        },
      },
    ]),
  );
}

/**
 * Ends a request whose write carried the key but whose answer is not kept (a new API key, a failure after the
 * write): the key stays COMMITTED, its lock is lifted, so a retry is told at once what was written.
 */
export async function settleCommittedIdempotencyKey(deps: Deps, claim: IdempotencyClaim): Promise<boolean> {
  return settledDespiteConflicts(() =>
    writeConditionally(deps, [
      {
        Update: {
          TableName: deps.tables.main,
          Key: keys.idempotencyKey(claim.firmId, claim.keyHash),
          UpdateExpression: 'SET lockedUntil = :unlocked',
          ConditionExpression: '#token = :token AND #state = :committed',
          ExpressionAttributeNames: { '#state': 'state', '#token': 'token' },
          ExpressionAttributeValues: {
            ':unlocked': 0,
            ':token': claim.token,
            ':committed': IDEMPOTENCY_STATE.committed,
          },
        },
      },
    ]),
  );
}

/**
 * Runs a write of the key's item again while it meets a transaction in progress on it (a concurrent retry's
 * claim, a late append's mark): committed or not by its own condition, never left undecided by a conflict.
 */
async function settledDespiteConflicts(write: () => Promise<WriteOutcome>): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const outcome = await write();
    if (outcome.status !== 'conflict' || attempt >= 9) return outcome.status === 'committed';
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** Math.min(attempt, 5)));
  }
}
