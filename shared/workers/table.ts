import { AUTO_ISSUED_EVENTS } from '../domain/certificates/content.js';
import {
  LEDGER_EVENT_TYPES,
  OUTCOME_EVENT_TYPES,
  WEBHOOK_EVENT_NAMES,
  type LedgerEventType,
} from '../ledger/event-types.js';
import type { QueueName } from '../ports/queue.js';
import type { Permissions } from '../routes/route.js';
import { SK_PREFIX } from '../store/keys.js';
import type { TableDefinition } from '../store/tables.js';
import type { StreamFilter } from './stream-filter.js';

export type WorkerTrigger =
  | {
      kind: 'queue';
      queue: QueueName;
      batchSize: number;
      maxReceiveCount: number;
      visibilityTimeoutSeconds: number;
      /** Most concurrent invocations the queue may drive (2..1000). @default 5 (lib/workers.ts) */
      maxConcurrency?: number;
      /**
       * The committed ledger records this queue receives, by event type: each is sent (a RecordMessage) after
       * its immutable copy is written (shared/ledger-writer/dispatch.ts), at least once.
       */
      subscribesTo?: readonly LedgerEventType[];
    }
  | { kind: 'schedule'; everyMinutes: number; localIntervalEnv: string }
  | {
      /**
       * A table's DynamoDB stream (the table must declare one, shared/store/tables.ts): an event source mapping
       * in AWS, the stream poller of the embedded stack locally. Each invocation gets changes in stream order
       * and answers with the first one it could not handle (partial batch response); the batch is split in two
       * on error (bisect) and a change still failing after `retryAttempts` goes to the worker's on-failure queue
       * in AWS, to an ERROR log line locally.
       */
      kind: 'stream';
      table: TableDefinition['name'];
      /** Only changes passing one of these reach the worker (stream-filter.ts). */
      filters: readonly StreamFilter[];
      batchSize: number;
      retryAttempts: number;
      /** How long the poller may gather changes before invoking (0: at once). */
      maxBatchingWindowSeconds: number;
    };

export interface WorkerDef {
  name: string;
  /** Handler module relative to the repository root, without extension; it exports `handler`. */
  handler: string;
  description: string;
  trigger: WorkerTrigger;
  permissions: Permissions;
  timeoutSeconds: number;
  /** Needs the public base URL of the API (PUBLIC_BASE_URL), e.g. to print verification links. */
  needsPublicBaseUrl?: boolean;
}

/**
 * What advancing a verification run takes (read the chain, save progress, write CHAIN_VERIFIED, re-queue the
 * rest): the verify route and the integrity-verify worker run the same code, so they share these grants.
 */
export const VERIFICATION_PERMISSIONS: Permissions = {
  main: 'write',
  ledger: 'append',
  immutable: 'write',
  sign: true,
  queues: ['integrity-verify'],
};

/** The backup reconciliation's Lambda timeout; a run stops starting firms a minute before it. */
export const BACKUP_RECONCILE_TIMEOUT_SECONDS = 900;

/** The log-checkpoint worker's Lambda timeout; a run hands on (re-queues) 30 s before it. */
export const LOG_CHECKPOINT_TIMEOUT_SECONDS = 120;

/**
 * The changes of the ledger table the tamper watch looks at: every change of a record row other than its
 * creation (the service only ever creates record rows; restore re-puts them from their copies), and the chain
 * head's removal (the service moves the head on every append, but never deletes it).
 */
export const TAMPER_WATCH_FILTERS: readonly StreamFilter[] = [
  { eventNames: ['MODIFY', 'REMOVE'], sortKey: { prefix: SK_PREFIX.record } },
  { eventNames: ['REMOVE'], sortKey: { equals: 'HEAD' } },
];

/**
 * The queue, schedule and stream consumers. Like the route table, this one list drives the CDK stack (SQS queue
 * with dead-letter queue and event source mapping, EventBridge schedule, or DynamoDB stream event source mapping)
 * and the embedded stack (local queue worker, timer, or stream poller).
 */
export const WORKERS: readonly WorkerDef[] = [
  {
    name: 'user-activation',
    handler: 'functions/workers/user-activation',
    description: "Links a user's first sign-in (activatedAt, subject) queued by a read-only route",
    trigger: {
      kind: 'queue',
      queue: 'user-activation',
      batchSize: 10,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 30,
    },
    // The one function granted the activation writes; routes that read only queue the sign-in here.
    permissions: { main: 'read', activateUsers: true },
    timeoutSeconds: 15,
  },
  {
    name: 'ledger-outbox-sweep',
    handler: 'functions/workers/ledger-outbox-sweep',
    description: 'Queues ledger records whose immutable copy was never confirmed',
    trigger: { kind: 'schedule', everyMinutes: 1, localIntervalEnv: 'OUTBOX_SWEEP_INTERVAL_SECONDS' },
    permissions: { ledger: 'read', queues: ['ledger-archive'] },
    timeoutSeconds: 60,
  },
  {
    name: 'ledger-archive',
    handler: 'functions/workers/ledger-archive',
    description:
      "Writes a ledger record's canonical bytes to the immutable store and clears its outbox entry",
    trigger: {
      kind: 'queue',
      queue: 'ledger-archive',
      batchSize: 10,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 60,
    },
    // Archiving dispatches the record to its subscribers (RECORD_SUBSCRIBERS, record-subscribers.ts).
    permissions: { ledger: 'archive', immutable: 'write' },
    timeoutSeconds: 30,
  },
  {
    name: 'integrity-verify',
    handler: 'functions/workers/integrity-verify',
    description: 'Continues chain verifications beyond what an API call may do, resumably, chunk by chunk',
    trigger: {
      kind: 'queue',
      queue: 'integrity-verify',
      batchSize: 1,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 180,
    },
    permissions: VERIFICATION_PERMISSIONS,
    timeoutSeconds: 150,
  },
  {
    name: 'integrity-verify-sweep',
    handler: 'functions/workers/integrity-verify-sweep',
    description:
      'Re-queues verification runs left RUNNING without progress (a continuation the queue refused)',
    trigger: { kind: 'schedule', everyMinutes: 1, localIntervalEnv: 'VERIFY_SWEEP_INTERVAL_SECONDS' },
    // Reads the sweep index and the runs, moves a re-queued run's index entry; sends only continuations.
    permissions: { main: 'write', queues: ['integrity-verify'] },
    timeoutSeconds: 60,
  },
  {
    name: 'reporting-aggregate',
    handler: 'functions/workers/reporting-aggregate',
    description:
      "Adds each completed review job (outcome record) to the firm's per-day reporting aggregates, once",
    trigger: {
      kind: 'queue',
      queue: 'reporting',
      // Each outcome record adds its completed job to the firm's reporting aggregates.
      subscribesTo: OUTCOME_EVENT_TYPES,
      batchSize: 10,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 60,
    },
    permissions: { main: 'write', ledger: 'read' },
    timeoutSeconds: 30,
  },
  {
    name: 'webhooks',
    handler: 'functions/workers/webhooks',
    description:
      'Fans committed records out to subscribed webhook endpoints and runs signed delivery attempts with backoff',
    trigger: {
      kind: 'queue',
      queue: 'webhooks',
      // Every event with a webhook name is fanned out to the firm's endpoints.
      subscribesTo: LEDGER_EVENT_TYPES.filter((eventType) => eventType in WEBHOOK_EVENT_NAMES),
      batchSize: 10,
      // Receiver failures are retried by re-queuing with a delay (see docs/architecture.md, Webhooks); these
      // receives only retry our own failures (DynamoDB, SQS) before the message is dead-lettered.
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 90,
    },
    permissions: { main: 'write', ledger: 'read', queues: ['webhooks'] },
    // A batch runs its attempts concurrently, each bounded by the 10 s delivery timeout.
    timeoutSeconds: 60,
  },
  {
    name: 'review-sla-sweep',
    handler: 'functions/workers/review-sla-sweep',
    description:
      'Records SLA_BREACHED once for each undecided review job past its deadline; finishes interrupted completions',
    trigger: { kind: 'schedule', everyMinutes: 1, localIntervalEnv: 'SLA_SWEEP_INTERVAL_SECONDS' },
    permissions: { main: 'write', ledger: 'append', immutable: 'write', sign: true },
    timeoutSeconds: 60,
  },
  {
    name: 'certificate-issue',
    handler: 'functions/workers/certificate-issue',
    description:
      "Generates a ledger record's one certificate (PDF and item) and links it to its job or assessment",
    trigger: {
      kind: 'queue',
      queue: 'certificates',
      // Certificates are issued without being asked for review outcomes and impact-assessment approvals.
      subscribesTo: [...AUTO_ISSUED_EVENTS],
      batchSize: 5,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 120,
    },
    permissions: { main: 'write', ledger: 'read', certificates: 'write', publicKey: true },
    timeoutSeconds: 60,
    needsPublicBaseUrl: true,
  },
  {
    name: 'backup-reconcile',
    handler: 'functions/workers/backup-reconcile',
    description:
      "Recounts each firm's ledger rows and immutable copies in the background, for the backup status",
    // Every 30 minutes; a firm is reconciled once its last reconciliation is older than RECONCILE_MAX_AGE_HOURS.
    trigger: { kind: 'schedule', everyMinutes: 30, localIntervalEnv: 'RECONCILE_INTERVAL_SECONDS' },
    permissions: { main: 'write', ledger: 'read', immutable: 'read' },
    timeoutSeconds: BACKUP_RECONCILE_TIMEOUT_SECONDS,
  },
  {
    name: 'log-checkpoint',
    handler: 'functions/workers/log-checkpoint',
    description:
      "Integrates a firm's committed records into its verifiable log (Merkle tree tiles) and signs a checkpoint",
    trigger: {
      kind: 'queue',
      queue: 'log-checkpoint',
      batchSize: 1,
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: LOG_CHECKPOINT_TIMEOUT_SECONDS + 30,
      // One run per firm at a time holds the firm's log lease; the others end at once.
      maxConcurrency: 20,
    },
    // Writes only log items (tiles, LOGTREE, checkpoints, its lease, the Sign budget) with conditional Puts; signs
    // with the ledger key (type 0x02) and is the one function that may sign with the checkpoint key (0x01).
    permissions: {
      ledger: 'append',
      sign: true,
      signCheckpoints: true,
      queues: ['log-checkpoint', 'log-witness'],
    },
    timeoutSeconds: LOG_CHECKPOINT_TIMEOUT_SECONDS,
    needsPublicBaseUrl: true,
  },
  {
    name: 'log-witness',
    handler: 'functions/workers/log-witness',
    description:
      "Submits a firm's new checkpoint to its witnesses and the platform's (C2SP tlog-witness) and keeps their cosignatures",
    trigger: {
      kind: 'queue',
      queue: 'log-witness',
      batchSize: 1,
      // Witness failures are retried by re-queuing with a backoff delay (shared/services/witness-submission.ts);
      // these receives only retry our own failures (DynamoDB, SQS) before the message is dead-lettered.
      maxReceiveCount: 5,
      visibilityTimeoutSeconds: 90,
    },
    // Witness state (main), cosignatures (ledger, conditional Puts), and the LOG_WITNESS_REFUSED record of an alarm
    // (an append: signed, archived); its own queue for retries.
    permissions: {
      main: 'write',
      ledger: 'append',
      immutable: 'write',
      sign: true,
      queues: ['log-witness'],
    },
    // Each witness's exchange is bounded by the delivery timeout (WEBHOOK_TIMEOUT_MS, 10 s), a 409 adds two more.
    timeoutSeconds: 60,
  },
  {
    name: 'log-repair-sweep',
    handler: 'functions/workers/log-repair-sweep',
    description: 'Queues a log checkpoint for each firm whose verifiable log is behind its ledger',
    trigger: { kind: 'schedule', everyMinutes: 1, localIntervalEnv: 'LOG_REPAIR_INTERVAL_SECONDS' },
    permissions: { main: 'read', ledger: 'read', queues: ['log-checkpoint'] },
    timeoutSeconds: 60,
  },
  {
    name: 'ledger-tamper-watch',
    handler: 'functions/workers/ledger-tamper-watch',
    description:
      'Flags within seconds a ledger record row changed or removed, or a chain head removed, outside the service',
    trigger: {
      kind: 'stream',
      table: 'ledger',
      filters: TAMPER_WATCH_FILTERS,
      batchSize: 100,
      retryAttempts: 10,
      maxBatchingWindowSeconds: 0,
    },
    // Reads the row and its copy; flags in the main table; appends TAMPERING_DETECTED (signed, copied, dispatched).
    permissions: { main: 'write', ledger: 'append', immutable: 'write', sign: true },
    timeoutSeconds: 60,
  },
];
