import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLES } from '../shared/store/tables.js';
import { streamFilterPattern } from '../shared/workers/stream-filter.js';
import type { WorkerDef } from '../shared/workers/table.js';
import { applyPermissions, type ServiceResources } from './permissions.js';
import { pascal } from './queues.js';
import { acknowledge } from './nag.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface WorkersProps {
  stage: StageSettings;
  workers: readonly WorkerDef[];
  resources: ServiceResources;
}

/** SQS event source maximum concurrency unless a worker sets its own (2 is the minimum SQS allows). */
export const DEFAULT_QUEUE_MAX_CONCURRENCY = 5;

/**
 * One function per worker of shared/workers/table.ts, fed by its SQS queue, started by its EventBridge schedule,
 * or fed by its table's DynamoDB stream (with an on-failure queue per stream worker).
 */
export class Workers extends Construct {
  readonly functions = new Map<string, ServiceFunction>();
  /** Each stream worker's on-failure destination: changes it failed on after every retry (monitoring alarms on it). */
  readonly streamFailureQueues = new Map<string, Queue>();

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const { stage, resources } = props;
    const logGroup = new LogGroup(this, 'Logs', {
      retention: stage.logRetention,
      removalPolicy: stage.removalPolicy,
    });
    for (const worker of props.workers) {
      const fn = new ServiceFunction(this, pascal(worker.name), {
        module: worker.handler,
        stage,
        description: worker.description,
        permissions: worker.permissions,
        timeout: Duration.seconds(worker.timeoutSeconds),
        logGroup,
        // One sweep at a time: a schedule that fires while the previous run is still going is throttled and
        // retried by EventBridge rather than racing it.
        ...(worker.trigger.kind === 'schedule' ? { reservedConcurrentExecutions: 1 } : {}),
      });
      applyPermissions(fn, worker.permissions, resources);
      const { trigger } = worker;
      if (trigger.kind === 'queue') {
        fn.addEventSource(
          new SqsEventSource(resources.queues.get(trigger.queue).queue, {
            batchSize: trigger.batchSize,
            // The worker reports failed messages; only those are retried and, in the end, dead-lettered.
            reportBatchItemFailures: true,
            // Caps the pollers' fan-out, so a backlog cannot take the account's concurrency from the API.
            maxConcurrency: trigger.maxConcurrency ?? DEFAULT_QUEUE_MAX_CONCURRENCY,
          }),
        );
      } else if (trigger.kind === 'stream') {
        const table = trigger.table === 'ledger' ? resources.data.ledgerTable : resources.data.mainTable;
        const definition = TABLES.find((t) => t.name === trigger.table);
        if (!definition?.stream)
          throw new Error(
            `Worker ${worker.name} reads the ${trigger.table} table's stream, which it does not have`,
          );
        // Only the stream's metadata and the failed batch's position land here, never the items (SQS's limit).
        const failures = new Queue(this, `${pascal(worker.name)}StreamFailures`, {
          encryption: QueueEncryption.SQS_MANAGED,
          enforceSSL: true,
          retentionPeriod: Duration.days(14),
        });
        acknowledge(
          failures,
          'SQS3',
          "This queue is the stream event source mapping's on-failure destination (a dead-letter queue itself): it only receives the position of changes the worker failed on after every retry, for an operator to replay.",
        );
        fn.addEventSource(
          new DynamoEventSource(table, {
            // Changes are judged against the current row, so re-reading the stream's 24 h is harmless.
            startingPosition: StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            maxBatchingWindow: Duration.seconds(trigger.maxBatchingWindowSeconds),
            bisectBatchOnError: true,
            retryAttempts: trigger.retryAttempts,
            reportBatchItemFailures: true,
            onFailure: new SqsDlq(failures),
            filters: trigger.filters.map((filter) =>
              // The pattern is taken as it is (CDK serialises it): the same JSON the local poller matches.
              FilterCriteria.filter(streamFilterPattern(filter, definition.sortKey)),
            ),
          }),
        );
        this.streamFailureQueues.set(worker.name, failures);
      } else {
        new Rule(this, `${pascal(worker.name)}Schedule`, {
          description: worker.description,
          schedule: Schedule.rate(Duration.minutes(trigger.everyMinutes)),
          // A missed run is superseded by the next one; there is nothing to catch up on.
          targets: [new LambdaFunction(fn, { maxEventAge: Duration.minutes(trigger.everyMinutes) })],
        });
      }
      this.functions.set(worker.name, fn);
    }
  }
}
