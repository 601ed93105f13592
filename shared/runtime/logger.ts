import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured JSON logger (Powertools). Handlers append requestId and firmId per request. */
export const logger = new Logger({
  serviceName: 'governance-ledger',
  // The stage (GLS_STAGE, set by the CDK stack) as the `environment` field of every line.
  ...(process.env.GLS_STAGE ? { environment: process.env.GLS_STAGE } : {}),
  logLevel: (process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'INFO',
});

/**
 * Logged (ERROR) when a completed chain verification found broken records. In AWS a metric filter on every
 * function's log group counts it, and an alarm fires on one (lib/monitoring.ts): keep the text stable.
 */
export const VERIFICATION_FAILED_LOG = 'Chain verification found broken records';

/**
 * Logged (WARN, with `dependency`) when a dependency call stalled past its budget or failed with a transient fault
 * and the request answers 503 (shared/adapters/bounded-dependencies.ts). A metric filter counts it per dependency
 * and an alarm fires on it (lib/monitoring.ts): keep the text stable.
 */
export const DEPENDENCY_UNAVAILABLE_LOG = 'Dependency unavailable';

/**
 * Logged (ERROR) once per ledger row the tamper watch finds changed or removed outside the service, and for every
 * chain head removed (shared/services/integrity/tamper-watch.ts). In AWS a metric filter turns it into the
 * LEDGER_TAMPERING_DETECTED metric, and an alarm fires on one (lib/monitoring.ts): keep the text stable.
 */
export const TAMPERING_DETECTED_LOG = 'LEDGER_TAMPERING_DETECTED';

/**
 * Logged (ERROR) when a witness refuses a checkpoint with 422 (shared/services/witness-submission.ts): it holds
 * another history of the firm's log, someone saw a split view. In AWS a metric filter on the workers' log group
 * counts it (WitnessRefusals) and an alarm fires on one (lib/monitoring.ts): keep the text stable.
 */
export const WITNESS_REFUSED_LOG = 'A witness refused a checkpoint: it holds another history of the log';

/**
 * Logged (ERROR) when the verification sweep re-queues a run for the VERIFY_STUCK_REQUEUES-th time or more
 * without progress (shared/services/integrity/verification-sweep.ts): each delivery fails, and the sweep keeps
 * trying once per stale period, but someone must look. A metric filter on the sweep's log group counts it
 * (StuckVerifications) and an alarm fires on one (lib/monitoring.ts): keep the text stable.
 */
export const VERIFICATION_STUCK_LOG = 'A verification keeps failing: re-queued again without progress';
