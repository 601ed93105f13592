import { jest } from '@jest/globals';
import { triggerCheckpoint } from '../../../shared/ledger-writer/log-trigger.js';
import type { SendOptions } from '../../../shared/ports/queue.js';
import type { Deps } from '../../../shared/runtime/deps.js';

/** The write path's trigger: at most two messages per firm per window, the second delivered after the window. */

function depsWithQueue() {
  const sent: { message: unknown; options: SendOptions | undefined }[] = [];
  const deps = {
    queue: {
      send: async (_queue: string, message: unknown, options?: SendOptions) => {
        sent.push({ message, options });
      },
    },
  } as unknown as Deps;
  return { deps, sent };
}

afterEach(() => {
  jest.useRealTimers();
  delete process.env.CHECKPOINT_INTERVAL_MS;
});

describe('triggerCheckpoint', () => {
  it('sends at once for a window’s first commit, delayed past its end for the second, nothing after', () => {
    jest.useFakeTimers({ now: 10_000_250 });
    process.env.CHECKPOINT_INTERVAL_MS = '1000';
    const { deps, sent } = depsWithQueue();
    for (let i = 1; i <= 50; i++) triggerCheckpoint(deps, 'firm_a', i);
    triggerCheckpoint(deps, 'firm_b', 7);
    // The immediate message names the batch's last record; the trailing one stands for the rest of the window.
    expect(sent).toEqual([
      { message: { firmId: 'firm_a', commits: { upTo: 1 } }, options: { delaySeconds: 0 } },
      { message: { firmId: 'firm_a', commits: {} }, options: { delaySeconds: 1 } },
      { message: { firmId: 'firm_b', commits: { upTo: 7 } }, options: { delaySeconds: 0 } },
    ]);
    // The next window starts over.
    jest.setSystemTime(10_001_000);
    triggerCheckpoint(deps, 'firm_a', 51);
    expect(sent).toHaveLength(4);
    expect(sent[3]).toEqual({
      message: { firmId: 'firm_a', commits: { upTo: 51 } },
      options: { delaySeconds: 0 },
    });
  });

  it('delays the trailing message to at least the window’s end with a longer interval', () => {
    jest.useFakeTimers({ now: 30_000_000 });
    process.env.CHECKPOINT_INTERVAL_MS = '5000';
    const { deps, sent } = depsWithQueue();
    triggerCheckpoint(deps, 'firm_a', 1);
    jest.setSystemTime(30_000_400);
    triggerCheckpoint(deps, 'firm_a', 2);
    expect(sent[1]!.options).toEqual({ delaySeconds: 5 });
  });

  it('sends nothing when checkpoints are off (CHECKPOINT_INTERVAL_MS=0), and never throws into the commit', () => {
    process.env.CHECKPOINT_INTERVAL_MS = '0';
    const { deps, sent } = depsWithQueue();
    triggerCheckpoint(deps, 'firm_a', 1);
    expect(sent).toHaveLength(0);
    process.env.CHECKPOINT_INTERVAL_MS = '1000';
    const broken = {
      get queue(): never {
        throw new Error('built without SQS');
      },
    } as unknown as Deps;
    expect(() => triggerCheckpoint(broken, 'firm_a', 1)).not.toThrow();
  });
});
