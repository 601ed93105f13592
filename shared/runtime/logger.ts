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
 * Logged (ERROR) when a witness refuses a checkpoint with 422 (shared/services/witness-submission.ts): it holds
 * another history of the firm's log, someone saw a split view. In AWS a metric filter on the workers' log group
 * counts it (WitnessRefusals) and an alarm fires on one (lib/monitoring.ts): keep the text stable.
 */
export const WITNESS_REFUSED_LOG = 'A witness refused a checkpoint: it holds another history of the log';
