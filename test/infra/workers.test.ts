import { Match, type Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_QUEUE_MAX_CONCURRENCY } from '../../lib/workers.js';
import { QUEUE_URL_ENV } from '../../shared/runtime/config.js';
import { tableName } from '../../shared/store/tables.js';
import { WORKERS, type WorkerDef } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import {
  allowedActions,
  allowedOn,
  functionIdByDescription,
  functionStatements,
  lambdaFunction,
  mentions,
  onlyResource,
  referencedId,
  resources,
} from './template-graph.js';

type QueueWorker = WorkerDef & { trigger: Extract<WorkerDef['trigger'], { kind: 'queue' }> };
type ScheduleWorker = WorkerDef & { trigger: Extract<WorkerDef['trigger'], { kind: 'schedule' }> };
type StreamWorker = WorkerDef & { trigger: Extract<WorkerDef['trigger'], { kind: 'stream' }> };

const queueWorkers = WORKERS.filter((w): w is QueueWorker => w.trigger.kind === 'queue');
const scheduleWorkers = WORKERS.filter((w): w is ScheduleWorker => w.trigger.kind === 'schedule');
const streamWorkers = WORKERS.filter((w): w is StreamWorker => w.trigger.kind === 'stream');

describe('workers', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('has every kind of worker to check', () => {
    expect(queueWorkers.length).toBeGreaterThan(0);
    expect(scheduleWorkers.length).toBeGreaterThan(0);
    expect(streamWorkers.map((w) => w.name)).toEqual(['ledger-tamper-watch']);
  });

  describe.each(streamWorkers)('$name (issue 32)', (worker) => {
    const mapping = () =>
      onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionIdByDescription(template, worker.description) },
      })[1];

    it("reads its table's stream from the oldest change, bisecting and reporting failed items", () => {
      const tables = resources(template, 'AWS::DynamoDB::Table');
      const [tableId] = Object.entries(tables).find(
        ([, table]) => table.Properties.TableName === `gls-dev-${worker.trigger.table}`,
      )!;
      expect(mapping().Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
        StartingPosition: 'TRIM_HORIZON',
        BatchSize: worker.trigger.batchSize,
        MaximumBatchingWindowInSeconds: worker.trigger.maxBatchingWindowSeconds,
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: worker.trigger.retryAttempts,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    });

    it("lets only record rows' MODIFY and REMOVE and the head's REMOVE through", () => {
      const patterns = mapping().Properties.FilterCriteria.Filters.map((f: { Pattern: string }) =>
        JSON.parse(f.Pattern),
      );
      expect(patterns).toEqual([
        { eventName: ['MODIFY', 'REMOVE'], dynamodb: { Keys: { sk: { S: [{ prefix: 'REC#' }] } } } },
        { eventName: ['REMOVE'], dynamodb: { Keys: { sk: { S: ['HEAD'] } } } },
      ]);
    });

    it('sends what it gave up on to an encrypted, TLS-only on-failure queue kept 14 days', () => {
      const queueId = referencedId(mapping().Properties.DestinationConfig.OnFailure.Destination);
      expect(resources(template, 'AWS::SQS::Queue')[queueId]!.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });
  });

  it.each(WORKERS)('runs $name with its timeout', (worker) => {
    const fn = lambdaFunction(template, functionIdByDescription(template, worker.description));
    expect(fn.Properties.Timeout).toBe(worker.timeoutSeconds);
  });

  describe.each(queueWorkers)('$name', (worker) => {
    const mapping = () => {
      const functionId = functionIdByDescription(template, worker.description);
      return onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionId },
      })[1];
    };
    const queue = () => {
      const queueId = referencedId(mapping().Properties.EventSourceArn);
      return resources(template, 'AWS::SQS::Queue')[queueId]!;
    };

    it('consumes its queue in batches, reporting failed items', () => {
      expect(mapping().Properties).toMatchObject({
        BatchSize: worker.trigger.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: worker.trigger.maxConcurrency ?? DEFAULT_QUEUE_MAX_CONCURRENCY },
      });
    });

    it('has a queue whose visibility timeout covers a whole invocation', () => {
      expect(queue().Properties.VisibilityTimeout).toBe(worker.trigger.visibilityTimeoutSeconds);
      expect(queue().Properties.VisibilityTimeout).toBeGreaterThanOrEqual(worker.timeoutSeconds);
      expect(queue().Properties.SqsManagedSseEnabled).toBe(true);
    });

    it('dead-letters a message after maxReceiveCount and keeps it 14 days', () => {
      const redrive = queue().Properties.RedrivePolicy;
      expect(redrive.maxReceiveCount).toBe(worker.trigger.maxReceiveCount);
      const dlq = resources(template, 'AWS::SQS::Queue')[referencedId(redrive.deadLetterTargetArn)]!;
      expect(dlq.Properties).toMatchObject({
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      });
    });

    it('refuses plain-HTTP access to the queue and its dead-letter queue', () => {
      const queueId = referencedId(mapping().Properties.EventSourceArn);
      const dlqId = referencedId(queue().Properties.RedrivePolicy.deadLetterTargetArn);
      for (const id of [queueId, dlqId]) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    });

    it('is the queue that senders are told about', () => {
      const queueId = referencedId(mapping().Properties.EventSourceArn);
      const senders = WORKERS.filter((w) => w.permissions.queues?.includes(worker.trigger.queue));
      for (const sender of senders) {
        const fn = lambdaFunction(template, functionIdByDescription(template, sender.description));
        expect(fn.Properties.Environment.Variables[QUEUE_URL_ENV[worker.trigger.queue]]).toEqual({
          Ref: queueId,
        });
      }
    });
  });

  it.each(scheduleWorkers)('starts $name on its EventBridge schedule, one run at a time', (worker) => {
    const functionId = functionIdByDescription(template, worker.description);
    expect(lambdaFunction(template, functionId).Properties.ReservedConcurrentExecutions).toBe(1);
    const minutes = worker.trigger.everyMinutes;
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('reconciles backups every 30 minutes, one run at a time, within the longest Lambda timeout (issue 14)', () => {
    const worker = scheduleWorkers.find((w) => w.name === 'backup-reconcile')!;
    const functionId = functionIdByDescription(template, worker.description);
    const fn = lambdaFunction(template, functionId);
    expect(fn.Properties).toMatchObject({ Timeout: 900, ReservedConcurrentExecutions: 1 });
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(30 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
    });
  });

  it('re-queues stalled verification runs every minute, from the main table and to the integrity queue alone (issue 32)', () => {
    const worker = scheduleWorkers.find((w) => w.name === 'integrity-verify-sweep')!;
    const functionId = functionIdByDescription(template, worker.description);
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })],
    });
    const statements = functionStatements(template, functionId);
    const tableId = (name: 'main' | 'ledger') =>
      onlyResource(template, 'AWS::DynamoDB::Table', { TableName: tableName('dev', name) })[0];
    // Its sweep index (a Query of the main table's indexes) and the runs (a Get, and the Update moving the entry).
    const onMain = allowedOn(statements, tableId('main'));
    for (const action of ['dynamodb:Query', 'dynamodb:GetItem', 'dynamodb:UpdateItem'])
      expect(onMain).toContain(action);
    expect(
      statements.some(
        (st) =>
          st.Effect === 'Allow' &&
          st.Action.includes('dynamodb:Query') &&
          mentions(st.Resource, tableId('main')) &&
          JSON.stringify(st.Resource).includes('/index/*'),
      ),
    ).toBe(true);
    const dynamoOnLedger = [...allowedOn(statements, tableId('ledger'))].filter((a) =>
      a.startsWith('dynamodb:'),
    );
    expect(dynamoOnLedger).toEqual([]);
    // Sends continuations only: the integrity-verify queue is the one queue it may send to, and it signs nothing.
    const verifyWorker = queueWorkers.find((w) => w.trigger.queue === 'integrity-verify')!;
    const queueId = referencedId(
      onlyResource(template, 'AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: functionIdByDescription(template, verifyWorker.description) },
      })[1].Properties.EventSourceArn,
    );
    const sends = statements.filter((st) => st.Effect === 'Allow' && st.Action.includes('sqs:SendMessage'));
    expect(sends.length).toBeGreaterThan(0);
    for (const st of sends)
      expect(JSON.stringify(st.Resource)).toBe(JSON.stringify({ 'Fn::GetAtt': [queueId, 'Arn'] }));
    expect(allowedActions(statements)).not.toContain('kms:Sign');
    expect(lambdaFunction(template, functionId).Properties.Environment.Variables).toHaveProperty(
      QUEUE_URL_ENV['integrity-verify'],
    );
  });

  it('refuses a queue whose visibility timeout is shorter than its worker', () => {
    const [worker] = queueWorkers;
    const tooShort = {
      ...worker!,
      trigger: { ...worker!.trigger, visibilityTimeoutSeconds: worker!.timeoutSeconds - 1 },
    };
    expect(() => synth({ workers: [tooShort] })).toThrow(/visibility timeout/);
  });
});
