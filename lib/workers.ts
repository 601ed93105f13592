import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { WorkerDef } from '../shared/workers/table.js';
import { applyPermissions, type ServiceResources } from './permissions.js';
import { pascal } from './queues.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface WorkersProps {
  stage: StageSettings;
  workers: readonly WorkerDef[];
  resources: ServiceResources;
}

/** SQS event source maximum concurrency unless a worker sets its own (2 is the minimum SQS allows). */
export const DEFAULT_QUEUE_MAX_CONCURRENCY = 5;

/** One function per worker of shared/workers/table.ts, fed by its SQS queue or started by its EventBridge schedule. */
export class Workers extends Construct {
  readonly functions = new Map<string, ServiceFunction>();

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
