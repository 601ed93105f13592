import type { WritePolicy } from '../domain/rate-limit/token-bucket.js';
import type { QueueName } from '../ports/queue.js';

/** Configuration is read once, from the environment, by these helpers; a missing required value fails fast. */
export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`Missing required environment variable ${name}`);
  return value;
}

export function optionalEnv(name: string, fallback: string): string {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** The public base URL certificates link to (`<base>/verify/<certificateId>`), without a trailing slash. */
export function publicBaseUrl(): string {
  return requireEnv(ENV.publicBaseUrl).replace(/\/+$/, '');
}

/** Environment variable names shared by the CDK stack (which sets them) and the runtime (which reads them). */
export const ENV = {
  runtime: 'GLS_RUNTIME',
  stage: 'GLS_STAGE',
  mainTable: 'MAIN_TABLE_NAME',
  ledgerTable: 'LEDGER_TABLE_NAME',
  dynamoEndpoint: 'DYNAMODB_ENDPOINT',
  immutableBucket: 'IMMUTABLE_BUCKET_NAME',
  uploadsBucket: 'UPLOADS_BUCKET_NAME',
  certificatesBucket: 'CERTIFICATES_BUCKET_NAME',
  signingKeyId: 'SIGNING_KEY_ID',
  ledgerArchiveQueueUrl: 'LEDGER_ARCHIVE_QUEUE_URL',
  integrityVerifyQueueUrl: 'INTEGRITY_VERIFY_QUEUE_URL',
  reportingQueueUrl: 'REPORTING_QUEUE_URL',
  webhooksQueueUrl: 'WEBHOOKS_QUEUE_URL',
  certificatesQueueUrl: 'CERTIFICATES_QUEUE_URL',
  userActivationQueueUrl: 'USER_ACTIVATION_QUEUE_URL',
  logCheckpointQueueUrl: 'LOG_CHECKPOINT_QUEUE_URL',
  logWitnessQueueUrl: 'LOG_WITNESS_QUEUE_URL',
  /** The KMS Ed25519 key (ECC_NIST_EDWARDS25519) that signs checkpoints as signature type 0x01 (issue 31). */
  checkpointKeyId: 'CHECKPOINT_KEY_ID',
  /** Public base URL certificates print (verification link, QR code); the embedded stack sets its own. */
  publicBaseUrl: 'PUBLIC_BASE_URL',
  oidcIssuer: 'OIDC_ISSUER',
  oidcAudience: 'OIDC_AUDIENCE',
  oidcJwksUrl: 'OIDC_JWKS_URL',
  oidcFirmClaim: 'OIDC_FIRM_CLAIM',
  dataDir: 'DATA_DIR',
  outboxGraceSeconds: 'OUTBOX_GRACE_SECONDS',
  verifyInlineMaxRecords: 'VERIFY_INLINE_MAX_RECORDS',
  /** How long a verification run may go without progress before the verification sweep re-queues it (s, default 600). */
  verifyStaleSeconds: 'VERIFY_STALE_SECONDS',
  /** Embedded stack: seconds between runs of the verification sweep (default 60, like the AWS schedule). */
  verifySweepIntervalSeconds: 'VERIFY_SWEEP_INTERVAL_SECONDS',
  /** "true" lets webhooks use http/https on loopback: the embedded stack's default, never set in AWS. */
  webhookAllowInsecureLoopback: 'WEBHOOK_ALLOW_INSECURE_LOOPBACK',
  webhookMaxAttempts: 'WEBHOOK_MAX_ATTEMPTS',
  webhookRetryBaseSeconds: 'WEBHOOK_RETRY_BASE_SECONDS',
  webhookRetryMaxSeconds: 'WEBHOOK_RETRY_MAX_SECONDS',
  webhookTimeoutMs: 'WEBHOOK_TIMEOUT_MS',
  /** Age (seconds) of a recorded review decision without its outcome record before the sweep finishes it. */
  completionRepairGraceSeconds: 'COMPLETION_REPAIR_GRACE_SECONDS',
  /**
   * How long a request's Idempotency-Key claim holds before a retry may take it over (a crashed request's). Only
   * liveness: a live request taken over fails its write alone (shared/store/idempotency-context.ts).
   */
  idempotencyLockSeconds: 'IDEMPOTENCY_LOCK_SECONDS',
  /** How long one Sign may take, waiting and retrying throttled calls included, before the request answers 503. */
  signerDeadlineMs: 'SIGNER_DEADLINE_MS',
  /** Sign calls one instance has in flight at most. */
  signerMaxInFlight: 'SIGNER_MAX_IN_FLIGHT',
  /** Embedded stack: latency added to every Sign call of the local signer. */
  signerLatencyMs: 'SIGNER_LATENCY_MS',
  /** Embedded stack: Sign calls per second shared by every instance (0: unlimited); beyond it, ThrottlingException. */
  signerRateLimit: 'SIGNER_RATE_LIMIT',
  /** How long an instance keeps the signing-key history it read (ms, default 10 s; issue 15). */
  keyHistoryTtlMs: 'KEY_HISTORY_TTL_MS',
  /** Embedded stack: isolated Lambda-like instances running the handlers (0: all in the server's own thread). */
  localInstances: 'LOCAL_INSTANCES',
  /** With LOCAL_INSTANCES: instances of the workers' own (queues, streams, schedules); 0 (default): shared. */
  localWorkerInstances: 'LOCAL_WORKER_INSTANCES',
  /** Embedded stack with instances: "true" freezes an instance between invocations, as Lambda does. */
  localFreezeBetweenInvocations: 'LOCAL_FREEZE_BETWEEN_INVOCATIONS',
  /** Ledger-writing requests per second per firm, for every firm (overrides the plan's; "0": no limit). */
  firmWriteRatePerSecond: 'FIRM_WRITE_RATE_PER_S',
  /** With FIRM_WRITE_RATE_PER_S: the firm's bucket size (default: one second's worth, at least 1). */
  firmWriteBurst: 'FIRM_WRITE_BURST',
  /** With FIRM_WRITE_RATE_PER_S: a firm's ledger-writing requests in flight at once, at most (0 or unset: no cap). */
  firmWriteConcurrency: 'FIRM_WRITE_CONCURRENCY',
  /**
   * How long a ledger-writing request's slot is leased (seconds, default 30: longer than any request runs), so a
   * slot whose holder crashed is free again after at most this long.
   */
  firmWriteSlotSeconds: 'FIRM_WRITE_SLOT_SECONDS',
  /** Age (hours) of a firm's last backup reconciliation before the scheduled run reconciles it again (issue 14). */
  backupReconcileMaxAgeHours: 'RECONCILE_MAX_AGE_HOURS',
  /** One attempt of a dependency call (DynamoDB, KMS, S3, SQS): the SDK's request timeout (ms, issue 32). */
  dependencyTimeoutMs: 'DEPENDENCY_TIMEOUT_MS',
  /** Opening a connection to a dependency (ms): the SDK's connection timeout. */
  dependencyConnectTimeoutMs: 'DEPENDENCY_CONNECT_TIMEOUT_MS',
  /** Attempts per dependency call, the first included (the SDK's standard retry strategy). */
  dependencyMaxAttempts: 'DEPENDENCY_MAX_ATTEMPTS',
  /** One dependency call, every attempt and backoff included (ms): past it the request answers 503. */
  dependencyBudgetMs: 'DEPENDENCY_BUDGET_MS',
  /**
   * How long a ledger append waits for its record before it gives up (ms): its intent is withdrawn and the request
   * answers 503 with Retry-After (docs/architecture.md §5). Inside the route functions' timeout.
   */
  requestBudgetMs: 'REQUEST_BUDGET_MS',
  /** The budget of each dependency check of GET /health (ms). */
  healthCheckTimeoutMs: 'HEALTH_CHECK_TIMEOUT_MS',
  /** A firm with new records gets a new checkpoint within this long of their commit (ms, default 1000, 0: off; issue 31). */
  checkpointIntervalMs: 'CHECKPOINT_INTERVAL_MS',
  /**
   * Checkpoint Signs per second the whole account may spend (default 20; each checkpoint costs 2): beyond it,
   * checkpoints of the active firms come further apart than CHECKPOINT_INTERVAL_MS (0: no budget).
   */
  checkpointSignBudgetPerSecond: 'CHECKPOINT_SIGN_BUDGET_PER_S',
  /** Embedded stack: seconds between runs of the log repair sweep (default 60, like the AWS schedule). */
  logRepairIntervalSeconds: 'LOG_REPAIR_INTERVAL_SECONDS',
  /**
   * Platform-wide witnesses every firm's checkpoints are submitted to, besides the firm's own (issue 31):
   * entries `<C2SP vkey, type 0x04> <submission prefix URL>`, separated by commas or newlines. The CDK app sets
   * it from `-c platformWitnesses=…`; the embedded stack reads it from its environment.
   */
  platformWitnesses: 'PLATFORM_WITNESSES',
} as const;

/**
 * Where a firm's ledger-writing limit comes from (docs/architecture.md §5, "Fair per-firm limits"):
 * FIRM_WRITE_RATE_PER_S (and FIRM_WRITE_BURST, FIRM_WRITE_CONCURRENCY) when set, the same for every firm ("0":
 * none); else in AWS the firm's plan (PLAN_WRITE_LIMITS), and in the embedded stack no limit at all.
 */
export type FirmWriteLimits = { kind: 'none' } | { kind: 'fixed'; policy: WritePolicy } | { kind: 'plan' };

export function firmWriteLimits(): FirmWriteLimits {
  const rawRate = process.env[ENV.firmWriteRatePerSecond];
  if (rawRate === undefined || rawRate === '') {
    for (const name of [ENV.firmWriteBurst, ENV.firmWriteConcurrency])
      if (process.env[name]) throw new Error(`${name} needs ${ENV.firmWriteRatePerSecond}`);
    return process.env[ENV.runtime] === 'aws' ? { kind: 'plan' } : { kind: 'none' };
  }
  const ratePerSecond = Number(rawRate);
  if (!Number.isFinite(ratePerSecond) || ratePerSecond < 0)
    throw new Error(`${ENV.firmWriteRatePerSecond} must be a non-negative number, got "${rawRate}"`);
  if (ratePerSecond === 0) return { kind: 'none' };
  const burst = intEnv(ENV.firmWriteBurst, Math.max(1, Math.ceil(ratePerSecond)));
  if (burst < 1) throw new Error(`${ENV.firmWriteBurst} must be at least 1`);
  const concurrency = intEnv(ENV.firmWriteConcurrency, 0);
  return { kind: 'fixed', policy: { ratePerSecond, burst, ...(concurrency > 0 ? { concurrency } : {}) } };
}

/** How long a ledger-writing request's slot is leased, in seconds (FIRM_WRITE_SLOT_SECONDS, default 30). */
export const firmWriteSlotSeconds = (): number => Math.max(1, intEnv(ENV.firmWriteSlotSeconds, 30));

/** The signer wrapper's settings (shared/adapters/throttled-signer.ts), the same in AWS and locally. */
export function signerLimits(): { deadlineMs: number; maxInFlight: number } {
  return {
    deadlineMs: intEnv(ENV.signerDeadlineMs, 5_000),
    maxInFlight: Math.max(1, intEnv(ENV.signerMaxInFlight, 8)),
  };
}

/**
 * The time budgets of dependency calls (issue 32, docs/operations.md "Faults"), the same in AWS and locally. An
 * attempt is bounded by `timeoutMs` (SDK requestHandler requestTimeout; the local adapters' own bound), a connection
 * by `connectTimeoutMs`; the SDK's standard retry strategy makes up to `maxAttempts` attempts; and the whole call,
 * attempts and backoff together, by `budgetMs` (shared/adapters/bounded-dependencies.ts), past which it fails with
 * DependencyUnavailableError (503 with Retry-After). `requestBudgetMs` bounds a ledger append's wait for its record.
 * The defaults keep every request far inside the route functions' 20 s (lib/service-function.ts) and API Gateway's
 * 30 s.
 */
export interface DependencyBudgets {
  timeoutMs: number;
  connectTimeoutMs: number;
  maxAttempts: number;
  budgetMs: number;
  requestBudgetMs: number;
  healthCheckTimeoutMs: number;
  /** The Retry-After (seconds) of a 503 for an unavailable dependency. */
  retryAfterSeconds: number;
}

export function dependencyBudgets(): DependencyBudgets {
  const timeoutMs = Math.max(1, intEnv(ENV.dependencyTimeoutMs, 3_000));
  const maxAttempts = Math.max(1, intEnv(ENV.dependencyMaxAttempts, 3));
  return {
    timeoutMs,
    connectTimeoutMs: Math.max(1, intEnv(ENV.dependencyConnectTimeoutMs, 1_000)),
    maxAttempts,
    budgetMs: Math.max(1, intEnv(ENV.dependencyBudgetMs, 6_000)),
    requestBudgetMs: Math.max(1, intEnv(ENV.requestBudgetMs, 8_000)),
    healthCheckTimeoutMs: Math.max(1, intEnv(ENV.healthCheckTimeoutMs, 1_000)),
    retryAfterSeconds: 2,
  };
}

/**
 * The budgets of an operator's command (ledgerctl): the same attempts and timeouts, but a whole call may run for a
 * minute. No gateway waits on it, and a bulk write (seed, recover) against a busy table is slow, not failing.
 */
export function operatorBudgets(): DependencyBudgets {
  const budgets = dependencyBudgets();
  return { ...budgets, budgetMs: Math.max(budgets.budgetMs, 60_000) };
}

/**
 * The SDK client settings of the budgets (every AWS client of both composition roots): request and connection
 * timeouts per attempt, and the standard retry strategy with `maxAttempts`. `retryTimedOut` false (DynamoDB): an
 * attempt past its request timeout is logged, not abandoned and retried, because a retried conditional write could
 * meet its own first attempt (a "lost race" that was its own success); the call's budget (withinBudget) ends it
 * instead, and the ledger writer finds out whether a doubtful commit applied (docs/operations.md, "Faults"). A refused
 * or broken connection is retried either way, so a write whose connection broke after it applied meets itself too:
 * the ledger writer (commitResolvingDoubt) and the Idempotency-Key mark (IdempotencyMark.settle) read what was applied
 * before calling a failed condition lost. KMS Sign, S3's conditional put (an identical copy counts as done) and SQS's
 * at-least-once send are safe to retry.
 */
export function sdkClientBudget(
  budgets: DependencyBudgets = dependencyBudgets(),
  options: { retryTimedOut: boolean } = { retryTimedOut: true },
) {
  return {
    maxAttempts: budgets.maxAttempts,
    retryMode: 'standard' as const,
    requestHandler: {
      requestTimeout: budgets.timeoutMs,
      connectionTimeout: budgets.connectTimeoutMs,
      throwOnRequestTimeout: options.retryTimedOut,
    },
  };
}

/**
 * How long a firm's new records wait for their checkpoint at most (CHECKPOINT_INTERVAL_MS, ms, default 1000); 0
 * turns the verifiable log's checkpoints off (no trigger, no repair sweep: the bench's "off" side).
 */
export const checkpointIntervalMs = (): number => intEnv(ENV.checkpointIntervalMs, 1_000);

/** The PLATFORM_WITNESSES setting as written ('' when unset); shared/services/witness-registry.ts parses it. */
export const platformWitnessesSetting = (): string => optionalEnv(ENV.platformWitnesses, '');

/** Checkpoint Signs per second for the whole account (CHECKPOINT_SIGN_BUDGET_PER_S, default 20; 0: unlimited). */
export const checkpointSignBudgetPerSecond = (): number => intEnv(ENV.checkpointSignBudgetPerSecond, 20);

/** The variable carrying each queue's URL; typed by QueueName, so a new queue cannot be forgotten. */
export const QUEUE_URL_ENV: Record<QueueName, string> = {
  'ledger-archive': ENV.ledgerArchiveQueueUrl,
  'integrity-verify': ENV.integrityVerifyQueueUrl,
  reporting: ENV.reportingQueueUrl,
  webhooks: ENV.webhooksQueueUrl,
  certificates: ENV.certificatesQueueUrl,
  'user-activation': ENV.userActivationQueueUrl,
  'log-checkpoint': ENV.logCheckpointQueueUrl,
  'log-witness': ENV.logWitnessQueueUrl,
};

/**
 * The alias of a stage's signing key number `n` (lib/ledger.ts creates them): the first key keeps the alias it
 * always had, the keys added for rotations (`-c signingKeys=N`) are numbered from 2.
 */
export function stageSigningKeyAlias(stage: string, n: number): string {
  return n === 1 ? `alias/gls-${stage}-ledger-signing` : `alias/gls-${stage}-ledger-signing-${n}`;
}

/** Largest number of signing keys a stage may declare (lib/ledger.ts refuses more). */
export const MAX_STAGE_SIGNING_KEYS = 20;
