import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  INSTANCES,
  clearFaults,
  expectBoundedAnswers,
  expectNothingLost,
  healthOk,
  immutableCopies,
  setFault,
  underLoad,
} from '../support/faults-under-load.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, onboardFirm } from '../support/stack-client.js';
import { until } from '../support/until.js';

/**
 * Issue 32, the in-process dependencies (signer, object store, queue) failing or stalling through the embedded
 * stack's fault switch (POST /__local/faults), under load: test/support/faults-under-load.ts says what must hold.
 * DynamoDB Local's stalls and deaths, real signals to a real process, are in dependency-faults-dynamodb.test.ts.
 */

let stack: RunningStack;
let receiver: { server: Server; url: string; sequences: Set<number> };

beforeAll(async () => {
  stack = await startStack({
    instances: INSTANCES,
    env: { OUTBOX_SWEEP_INTERVAL_SECONDS: '1', OUTBOX_GRACE_SECONDS: '0' },
  });
  const sequences = new Set<number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sequenceNumber?: number };
      if (typeof body.sequenceNumber === 'number') sequences.add(body.sequenceNumber);
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  receiver = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, sequences };
});

afterAll(async () => {
  await new Promise((closed) => receiver.server.close(closed));
  await stopStack(stack, { removeData: true });
});

describe('in-process dependency faults under load (issue 32)', () => {
  it('the signer failing, then stalling: appends answer 201 or 503 in time, reads 200; nothing lost', async () => {
    const firm = await onboardFirm(stack);
    const answers = await underLoad(stack, firm, 'signer', async () => {
      await setFault(stack, 'signer', 'fail', 60_000);
      const { status, body } = await call(stack, 'GET', '/health');
      expect(status).toBe(503);
      expect(body).toMatchObject({ status: 'degraded', dependencies: { signer: 'failing', database: 'ok' } });
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      // Longer than a call's budget (5 s): the stalled Sign calls are given up, not waited out.
      await setFault(stack, 'signer', 'stall', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      await clearFaults(stack);
    });
    expectBoundedAnswers(answers, { writes: true, reads: false });
    expect(answers.some((a) => a.kind === 'write' && a.status === 503)).toBe(true);
    await until('health', () => healthOk(stack));
    await expectNothingLost(stack, firm, answers);
  });

  it('the object store failing: appends still commit and answer 201; backup status pending, then copies complete', async () => {
    const firm = await onboardFirm(stack);
    let pendingSeen = 0;
    const answers = await underLoad(stack, firm, 'objects', async () => {
      await setFault(stack, 'objects', 'fail', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const status = await call(stack, 'GET', '/v1/firm/me/backup-status', { key: firm.key });
      expect(status.status).toBe(200);
      pendingSeen = status.body.pendingCopies as number;
      expect(status.body.healthy).toBe(false);
      await clearFaults(stack);
    });
    expectBoundedAnswers(answers, { writes: false, reads: false });
    expect(pendingSeen).toBeGreaterThan(0);
    const chain = await chainOf(stack, firm.key);
    await until('the immutable copies', async () =>
      (await immutableCopies(stack, firm.firmId)) === chain.length ? true : undefined,
    );
    const after = await call(stack, 'GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(after.body).toMatchObject({ healthy: true, pendingCopies: 0 });
    await expectNothingLost(stack, firm, answers);
  });

  it('the queue refusing messages: appends answer 201; webhooks are delivered late, none lost', async () => {
    const firm = await onboardFirm(stack);
    const hook = await call(stack, 'POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: receiver.url, events: ['incident.logged'] },
    });
    expect(hook.status).toBe(201);
    const answers = await underLoad(stack, firm, 'queue', async () => {
      await setFault(stack, 'queue', 'fail', 60_000);
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      await clearFaults(stack);
    });
    expectBoundedAnswers(answers, { writes: false, reads: false });
    const chain = await chainOf(stack, firm.key);
    const incidents = chain.filter((record) => record.eventType === 'INCIDENT_LOGGED');
    await until('every webhook', async () =>
      incidents.every((record) => receiver.sequences.has(record.sequenceNumber)) ? true : undefined,
    );
    await expectNothingLost(stack, firm, answers);
  });

  it('the fault switch refuses what it does not know', async () => {
    const response = await fetch(`${stack.baseUrl}/__local/faults`, {
      method: 'POST',
      body: JSON.stringify({ dependency: 'database', mode: 'fail', forMs: 100 }),
    });
    expect(response.status).toBe(400);
    await clearFaults(stack);
    expect(await (await fetch(`${stack.baseUrl}/__local/faults`)).json()).toEqual({});
  });
});
