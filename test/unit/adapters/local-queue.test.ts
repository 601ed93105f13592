import type { SQSEvent } from 'aws-lambda';
import { jest } from '@jest/globals';
import { LocalQueue } from '../../../shared/adapters/local/local-queue.js';

describe('LocalQueue', () => {
  it('delivers SQS-shaped events with the JSON body', async () => {
    const queue = new LocalQueue();
    const events: SQSEvent[] = [];
    queue.register('ledger-archive', async (event) => {
      events.push(event);
    });
    await queue.send('ledger-archive', { firmId: 'f', sequenceNumber: 3 });
    await queue.drain();
    expect(events).toHaveLength(1);
    const [record] = events[0]!.Records;
    expect(JSON.parse(record!.body)).toEqual({ firmId: 'f', sequenceNumber: 3 });
    expect(record!.eventSource).toBe('aws:sqs');
    expect(record!.attributes.ApproximateReceiveCount).toBe('1');
  });

  it('retries a throwing worker, then succeeds', async () => {
    const queue = new LocalQueue({ retryBaseMs: 5 });
    let calls = 0;
    queue.register('ledger-archive', async () => {
      calls += 1;
      if (calls < 3) throw new Error('transient');
    });
    await queue.send('ledger-archive', {});
    await queue.drain();
    expect(calls).toBe(3);
    expect(queue.deadLetterList()).toEqual([]);
  });

  it('treats a batch item failure as a failed receive and dead-letters after maxReceiveCount', async () => {
    const queue = new LocalQueue({ retryBaseMs: 1, maxReceiveCount: 4 });
    const receiveCounts: string[] = [];
    queue.register('ledger-archive', async (event) => {
      const record = event.Records[0]!;
      receiveCounts.push(record.attributes.ApproximateReceiveCount);
      return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
    });
    await queue.send('ledger-archive', { n: 1 });
    await queue.drain();
    expect(receiveCounts).toEqual(['1', '2', '3', '4']);
    expect(queue.deadLetterList()).toEqual([
      expect.objectContaining({
        queue: 'ledger-archive',
        body: '{"n":1}',
        receiveCount: 4,
        lastError: 'Reported as a batch item failure',
      }),
    ]);
  });

  it('holds a delayed message back for its delay, like SQS DelaySeconds', async () => {
    jest.useFakeTimers();
    try {
      const queue = new LocalQueue();
      const bodies: string[] = [];
      queue.register('webhooks', async (event) => {
        bodies.push(event.Records[0]!.body);
      });
      await queue.send('webhooks', { later: true }, { delaySeconds: 2 });
      await queue.send('webhooks', { now: true });
      await jest.advanceTimersByTimeAsync(1999);
      expect(bodies).toEqual(['{"now":true}']);
      await jest.advanceTimersByTimeAsync(1);
      expect(bodies).toEqual(['{"now":true}', '{"later":true}']);
      await queue.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('refuses a delay SQS would refuse', async () => {
    const queue = new LocalQueue();
    await expect(queue.send('webhooks', {}, { delaySeconds: 901 })).rejects.toThrow(RangeError);
    await expect(queue.send('webhooks', {}, { delaySeconds: 1.5 })).rejects.toThrow(RangeError);
    await queue.close();
  });

  it('dead-letters messages for a queue without a worker, and refuses work once closed', async () => {
    const queue = new LocalQueue({ retryBaseMs: 1, maxReceiveCount: 2 });
    await queue.send('ledger-archive', {});
    await queue.drain();
    expect(queue.deadLetterList()[0]?.lastError).toMatch(/No worker/);
    await queue.close();
    await expect(queue.send('ledger-archive', {})).rejects.toThrow(/closed/);
  });

  it('keeps the newest dead letters only, counting the ones dropped, and says what it holds', async () => {
    const queue = new LocalQueue({ retryBaseMs: 1, maxReceiveCount: 1, maxDeadLetters: 2 });
    queue.register('ledger-archive', async () => {
      throw new Error('always');
    });
    for (let n = 1; n <= 3; n++) {
      await queue.send('ledger-archive', { n });
      await queue.drain();
    }
    expect(queue.deadLetterList().map((d) => d.body)).toEqual(['{"n":2}', '{"n":3}']);
    await queue.send('ledger-archive', { n: 4 }, { delaySeconds: 60 });
    expect(queue.stats()).toEqual({ waiting: 1, inFlight: 0, deadLetters: 2, deadLettersDropped: 1 });
    await queue.close();
    expect(queue.stats().waiting).toBe(0);
  });
});
