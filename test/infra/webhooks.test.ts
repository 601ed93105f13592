import type { Template } from 'aws-cdk-lib/assertions';
import { ROUTES } from '../../shared/routes.js';
import { QUEUE_URL_ENV } from '../../shared/runtime/config.js';
import { WORKERS } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import {
  allowedOn,
  functionIdByDescription,
  functionStatements,
  lambdaFunction,
  referencedId,
  resources,
  routeFunctionId,
} from './template-graph.js';

describe('webhooks in the stack', () => {
  let template: Template;
  let webhooksQueue: string;
  const webhooksWorker = WORKERS.find((w) => w.name === 'webhooks')!;

  beforeAll(() => {
    template = synth();
    const workerId = functionIdByDescription(template, webhooksWorker.description);
    const [, mapping] = Object.entries(resources(template, 'AWS::Lambda::EventSourceMapping')).find(
      ([, m]) => referencedId(m.Properties.FunctionName) === workerId,
    )!;
    webhooksQueue = referencedId(mapping.Properties.EventSourceArn);
  });

  /** Whether a function may send to the webhooks queue, and is told its URL. */
  const sendsToWebhooks = (functionId: string) => ({
    send: allowedOn(functionStatements(template, functionId), webhooksQueue).has('sqs:SendMessage'),
    env: lambdaFunction(template, functionId).Properties.Environment.Variables[QUEUE_URL_ENV.webhooks],
  });

  it('lets every function that appends or archives ledger records dispatch them to the webhooks queue', () => {
    const appenders = ROUTES.filter((r) => r.permissions.ledger && r.permissions.ledger !== 'read');
    expect(appenders.length).toBeGreaterThan(0);
    for (const route of appenders)
      expect(sendsToWebhooks(routeFunctionId(template, `${route.method} ${route.path}`))).toEqual({
        send: true,
        env: { Ref: webhooksQueue },
      });
    const archive = WORKERS.find((w) => w.name === 'ledger-archive')!;
    expect(sendsToWebhooks(functionIdByDescription(template, archive.description)).send).toBe(true);
  });

  it('does not let read-only webhook routes send to the queue', () => {
    for (const key of ['GET /v1/firm/me/webhooks', 'GET /v1/firm/me/webhooks/{id}/deliveries'])
      expect(sendsToWebhooks(routeFunctionId(template, key))).toEqual({ send: false, env: undefined });
    expect(
      sendsToWebhooks(
        routeFunctionId(template, 'POST /v1/firm/me/webhooks/{id}/deliveries/{deliveryId}/redeliver'),
      ).send,
    ).toBe(true);
  });

  it('never lets a deployed function accept loopback or plain-http webhook URLs', () => {
    const functions = Object.values(resources(template, 'AWS::Lambda::Function'));
    expect(functions.length).toBeGreaterThan(10);
    for (const fn of functions)
      expect(fn.Properties.Environment?.Variables?.WEBHOOK_ALLOW_INSECURE_LOOPBACK).toBeUndefined();
  });

  it('gives the webhooks queue a dead-letter queue', () => {
    const queue = resources(template, 'AWS::SQS::Queue')[webhooksQueue]!;
    expect(queue.Properties.RedrivePolicy.maxReceiveCount).toBe(5);
    expect(
      resources(template, 'AWS::SQS::Queue')[
        referencedId(queue.Properties.RedrivePolicy.deadLetterTargetArn)
      ],
    ).toBeDefined();
  });
});
