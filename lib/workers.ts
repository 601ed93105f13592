import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import type { WorkerDef } from '../shared/workers.js';
import { applyPermissions, type ServiceResources } from './permissions.js';
import { pascal } from './queues.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface WorkersProps {
  stage: StageSettings;
  workers: readonly WorkerDef[];
  resources: ServiceResources;
}

/** One function per worker of shared/workers.ts, fed by its SQS queue or started by its EventBridge schedule. */
export class Workers extends Construct {
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const { stage, resources } = props;
    for (const worker of props.workers) {
      const fn = new ServiceFunction(this, pascal(worker.name), {
        module: worker.handler,
        stage,
        description: worker.description,
        permissions: worker.permissions,
        timeout: Duration.seconds(worker.timeoutSeconds),
      });
      applyPermissions(fn, worker.permissions, resources);
      const { trigger } = worker;
      if (trigger.kind === 'queue') {
        fn.addEventSource(
          new SqsEventSource(resources.queues.get(trigger.queue).queue, {
            batchSize: trigger.batchSize,
            // The worker reports failed messages; only those are retried and, in the end, dead-lettered.
            reportBatchItemFailures: true,
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
