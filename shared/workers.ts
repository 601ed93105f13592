import type { QueueName } from './ports/queue.js';
import type { Permissions } from './routes/route.js';

export type WorkerTrigger =
  | {
      kind: 'queue';
      queue: QueueName;
      batchSize: number;
      maxReceiveCount: number;
      visibilityTimeoutSeconds: number;
      /** Most concurrent invocations the queue may drive (2..1000). @default 5 (lib/workers.ts) */
      maxConcurrency?: number;
    }
  | { kind: 'schedule'; everyMinutes: number; localIntervalEnv: string };

export interface WorkerDef {
  name: string;
  /** Handler module relative to the repository root, without extension; it exports `handler`. */
  handler: string;
  description: string;
  trigger: WorkerTrigger;
  permissions: Permissions;
  timeoutSeconds: number;
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

/**
 * The queue and schedule consumers. Like the route table, this one list drives the CDK stack (SQS queue with
 * dead-letter queue and event source mapping, or EventBridge schedule) and the embedded stack (local queue
 * worker, or timer).
 */
export const WORKERS: readonly WorkerDef[] = [
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
];
