import type { SQSEvent } from 'aws-lambda';
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

  it('dead-letters messages for a queue without a worker, and refuses work once closed', async () => {
    const queue = new LocalQueue({ retryBaseMs: 1, maxReceiveCount: 2 });
    await queue.send('ledger-archive', {});
    await queue.drain();
    expect(queue.deadLetterList()[0]?.lastError).toMatch(/No worker/);
    await queue.close();
    await expect(queue.send('ledger-archive', {})).rejects.toThrow(/closed/);
  });
});
