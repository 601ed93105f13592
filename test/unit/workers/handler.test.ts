import type { DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda';
import { jest } from '@jest/globals';
import { installDeps, type Deps } from '../../../shared/runtime/deps.js';
import { logger } from '../../../shared/runtime/logger.js';
import { queueWorker, scheduledWorker, streamWorker } from '../../../shared/workers/handler.js';

const deps = { tables: { main: 'main', ledger: 'ledger' } } as unknown as Deps;
installDeps(deps);

function event(...bodies: unknown[]): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({ messageId: `m${i}`, body: JSON.stringify(body) }) as SQSRecord),
  };
}

interface Message {
  outcome: 'ok' | 'throw' | 'not-yet';
}

async function process(_deps: Deps, { outcome }: Message): Promise<boolean | void> {
  if (outcome === 'throw') throw new Error('boom');
  if (outcome === 'not-yet') return false;
}

describe('queueWorker', () => {
  it('hands each message its parsed body and the deps, and reports only the failed ones', async () => {
    const seen: [Deps, Message][] = [];
    const handler = queueWorker<Message>(
      async (given, message) => {
        seen.push([given, message]);
        return process(given, message);
      },
      { failureLog: 'Test message failed' },
    );
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const response = await handler(
        event({ outcome: 'ok' }, { outcome: 'throw' }, { outcome: 'not-yet' }, { outcome: 'ok' }),
      );
      expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
      expect(seen.map(([, message]) => message.outcome)).toEqual(['ok', 'throw', 'not-yet', 'ok']);
      expect(seen.every(([given]) => given === deps)).toBe(true);
      // A throw is logged with the message id; a message that is merely not done yet is not.
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0]![0]).toBe('Test message failed');
      expect(error.mock.calls[0]![1]).toMatchObject({ messageId: 'm1' });
    } finally {
      error.mockRestore();
    }
  });

  it('fails a message whose body is not JSON, and still runs the rest', async () => {
    const handler = queueWorker<Message>(process, { failureLog: 'Test message failed' });
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const broken = { messageId: 'bad', body: '{' } as SQSRecord;
      const response = await handler({ Records: [broken, ...event({ outcome: 'ok' }).Records] });
      expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    } finally {
      error.mockRestore();
    }
  });

  it('runs messages one after another unless concurrent', async () => {
    const order = async (concurrent: boolean) => {
      const log: string[] = [];
      const handler = queueWorker<{ id: string; waitMs: number }>(
        async (_deps, { id, waitMs }) => {
          log.push(`start ${id}`);
          await new Promise((resolve) => setTimeout(resolve, waitMs));
          log.push(`end ${id}`);
        },
        { failureLog: 'Test message failed', concurrent },
      );
      await handler(event({ id: 'a', waitMs: 20 }, { id: 'b', waitMs: 0 }));
      return log;
    };
    expect(await order(false)).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(await order(true)).toEqual(['start a', 'start b', 'end b', 'end a']);
  });
});

describe('scheduledWorker', () => {
  it('runs with the deps and returns what the run returns', async () => {
    const handler = scheduledWorker(async (given) => ({ same: given === deps }));
    await expect(handler()).resolves.toEqual({ same: true });
  });
});

describe('streamWorker', () => {
  const change = (sequenceNumber: string, sk: string): DynamoDBRecord => ({
    eventName: 'REMOVE',
    dynamodb: { SequenceNumber: sequenceNumber, Keys: { pk: { S: 'FIRM#f' }, sk: { S: sk } } },
  });

  it('runs the changes in stream order and stops at the first failure, answering it as the failed item', async () => {
    const seen: string[] = [];
    const handler = streamWorker(
      async (given, record) => {
        expect(given).toBe(deps);
        seen.push(record.dynamodb!.SequenceNumber!);
        if (record.dynamodb!.Keys!.sk!.S === 'bad') throw new Error('boom');
      },
      { failureLog: 'Test change failed' },
    );
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      expect(await handler({ Records: [change('1', 'ok'), change('2', 'bad'), change('3', 'ok')] })).toEqual({
        batchItemFailures: [{ itemIdentifier: '2' }],
      });
      // The change after the failed one is left for the retry, so it never overtakes it.
      expect(seen).toEqual(['1', '2']);
      expect(error).toHaveBeenCalledWith(
        'Test change failed',
        expect.objectContaining({ sequenceNumber: '2' }),
      );
    } finally {
      error.mockRestore();
    }
    expect(await handler({ Records: [change('4', 'ok')] })).toEqual({ batchItemFailures: [] });
  });
});
