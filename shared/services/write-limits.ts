import { PLAN_WRITE_LIMITS } from '../domain/rate-limit/plan-limits.js';
import {
  admitted,
  notDrawn,
  refusalHoldUntil,
  refused,
  type BucketView,
  type WritePolicy,
} from '../domain/rate-limit/token-bucket.js';
import { firmWriteLimits, type FirmWriteLimits } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { getFirm } from '../store/firm-store.js';
import {
  releaseWriteSlot,
  slotGiveBackItem,
  takeWriteToken,
  type HeldSlot,
} from '../store/rate-limit-store.js';
import type { TransactItem } from '../store/conditional-write.js';

/** How long an instance keeps a firm's plan-derived policy before reading the firm again. */
const PLAN_TTL_MS = 60_000;
const planPolicies = new Map<string, { policy: WritePolicy; until: number }>();
let limits: FirmWriteLimits | undefined;

/**
 * The firm's ledger-writing policy, or null when no limit applies (then no DynamoDB call at all): the fixed
 * FIRM_WRITE_RATE_PER_S policy, or in AWS the firm's plan (PLAN_WRITE_LIMITS), read at most once a minute per
 * instance, so a plan change applies within a minute.
 */
export async function firmWritePolicy(deps: Deps, firmId: string): Promise<WritePolicy | null> {
  limits ??= firmWriteLimits();
  if (limits.kind === 'none') return null;
  if (limits.kind === 'fixed') return limits.policy;
  const now = deps.clock.now().getTime();
  const cached = planPolicies.get(firmId);
  if (cached && cached.until > now) return cached.policy;
  const firm = await getFirm(deps, firmId);
  // An authenticated caller's firm exists; were it gone, the strictest plan applies.
  const policy = PLAN_WRITE_LIMITS[firm?.plan ?? 'PRINCIPAL'];
  if (planPolicies.size >= 10_000) planPolicies.clear();
  planPolicies.set(firmId, { policy, until: now + PLAN_TTL_MS });
  return policy;
}

/** One ledger-writing request of the firm at its limits, as takeFirmWriteToken decided it. */
export interface WriteAdmission {
  policy: WritePolicy;
  /** What the client is told (RateLimit, and Retry-After for a refusal). */
  view: BucketView;
  /** The request's instant, microseconds since the epoch. */
  now: number;
  /** A refusal: until when (µs) the instance may keep refusing the credential from memory. */
  holdUntil: number | null;
  /** Which limit refused, for a refusal. */
  refusedBy?: 'rate' | 'concurrency';
  /** Admitted under a concurrency cap: the slot held until its append or releaseFirmWriteSlot frees it. */
  slot?: HeldSlot;
}

/**
 * One ledger-writing request of the firm against its bucket and, when the policy caps concurrency, its slots
 * (shared/domain/rate-limit/write-slots.ts): admitted with a token (and a slot), or refused by the bucket or by
 * the cap (no token taken), either refusal held in memory for the credential until its Retry-After. Null when no
 * limit applies.
 */
export async function takeFirmWriteToken(deps: Deps, firmId: string): Promise<WriteAdmission | null> {
  const policy = await firmWritePolicy(deps, firmId);
  if (!policy) return null;
  const now = deps.clock.now().getTime() * 1000;
  const result = await takeWriteToken(deps, firmId, policy, now);
  if (result.allowed)
    return {
      policy,
      view: admitted(policy, now, result.tat),
      now,
      holdUntil: null,
      ...(result.slot ? { slot: result.slot } : {}),
    };
  if (result.refusedBy === 'concurrency') {
    const view = notDrawn(policy, now, result.tat);
    return { policy, view, now, holdUntil: concurrencyHoldUntil(now, view), refusedBy: 'concurrency' };
  }
  return {
    policy,
    view: refused(policy, now, result.tat),
    now,
    holdUntil: refusalHoldUntil(policy, now, result.tat),
    refusedBy: 'rate',
  };
}

/**
 * How long an instance keeps refusing a credential the cap refused: the whole Retry-After it was told (1 s).
 * Unlike the bucket's hold this may refuse a request the cap would have let through (a slot can come back
 * sooner), but only one of a credential that was just told to wait that long: a client that honours Retry-After
 * never meets it, and one that does not (a burst far over its limit) costs no storage call while it lasts.
 */
function concurrencyHoldUntil(now: number, view: BucketView): number {
  return now + view.nextTokenSeconds * 1_000_000;
}

/** The write that gives the slot back when a ledger append carries it (store/write-slot-context.ts). */
export function firmWriteSlotGiveBack(
  deps: Deps,
  firmId: string,
  admission: WriteAdmission,
): TransactItem | undefined {
  return admission.slot ? slotGiveBackItem(deps, firmId, admission.slot) : undefined;
}

/** Gives back the slot an admitted request held (after its answer is built). */
export async function releaseFirmWriteSlot(
  deps: Deps,
  firmId: string,
  admission: WriteAdmission,
): Promise<void> {
  if (admission.slot && admission.policy.concurrency !== undefined)
    await releaseWriteSlot(deps, firmId, admission.policy.concurrency, admission.slot);
}
