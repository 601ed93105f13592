import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from '../domain/webhooks/delivery.js';
import type { UrlPolicy } from '../domain/webhooks/url-policy.js';
import { MAX_DELAY_SECONDS } from '../ports/queue.js';
import { ENV, intEnv, optionalEnv } from '../runtime/config.js';

export interface WebhookConfig {
  policy: UrlPolicy;
  schedule: RetrySchedule;
  /** Bound on one attempt: connect, TLS, request and response status. */
  timeoutMs: number;
}

export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/**
 * Webhook settings from the environment. AWS sets none of them, so production gets https-only public
 * addresses and the default retry schedule; the embedded stack turns loopback on (bin/local.ts) and the
 * integration tests shorten the schedule.
 */
export function webhookConfig(): WebhookConfig {
  const maxDelaySeconds = intEnv(ENV.webhookRetryMaxSeconds, DEFAULT_RETRY_SCHEDULE.maxDelaySeconds);
  if (maxDelaySeconds > MAX_DELAY_SECONDS)
    throw new Error(
      `${ENV.webhookRetryMaxSeconds} must be at most ${MAX_DELAY_SECONDS} (SQS's longest delay)`,
    );
  return {
    policy: { allowInsecureLoopback: optionalEnv(ENV.webhookAllowInsecureLoopback, 'false') === 'true' },
    schedule: {
      maxAttempts: Math.max(1, intEnv(ENV.webhookMaxAttempts, DEFAULT_RETRY_SCHEDULE.maxAttempts)),
      baseDelaySeconds: Math.max(
        1,
        intEnv(ENV.webhookRetryBaseSeconds, DEFAULT_RETRY_SCHEDULE.baseDelaySeconds),
      ),
      maxDelaySeconds: Math.max(1, maxDelaySeconds),
    },
    timeoutMs: Math.max(100, intEnv(ENV.webhookTimeoutMs, DEFAULT_DELIVERY_TIMEOUT_MS)),
  };
}
