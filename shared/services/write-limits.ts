import { PLAN_WRITE_LIMITS } from '../domain/rate-limit/plan-limits.js';
import {
  admitted,
  refusalHoldUntil,
  refused,
  type BucketView,
  type WritePolicy,
} from '../domain/rate-limit/token-bucket.js';
import { firmWriteLimits, type FirmWriteLimits } from '../runtime/config.js';
import type { Deps } from '../runtime/deps.js';
import { getFirm } from '../store/firm-store.js';
import { takeWriteToken } from '../store/rate-limit-store.js';

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

/**
 * One ledger-writing request of the firm against its bucket: the policy, what the client is told and, for a
 * refusal, until when (microseconds) the instance may keep refusing the same credential from memory.
 */
export async function takeFirmWriteToken(
  deps: Deps,
  firmId: string,
): Promise<{ policy: WritePolicy; view: BucketView; now: number; holdUntil: number | null } | null> {
  const policy = await firmWritePolicy(deps, firmId);
  if (!policy) return null;
  const now = deps.clock.now().getTime() * 1000;
  const { allowed, tat } = await takeWriteToken(deps, firmId, policy, now);
  return allowed
    ? { policy, view: admitted(policy, now, tat), now, holdUntil: null }
    : { policy, view: refused(policy, now, tat), now, holdUntil: refusalHoldUntil(policy, now, tat) };
}
