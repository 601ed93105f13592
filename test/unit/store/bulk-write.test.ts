import type { Deps } from '../../../shared/runtime/deps.js';
import { BulkWriter } from '../../../shared/store/bulk-write.js';

interface Sent {
  RequestItems: Record<string, { PutRequest: { Item: { n: number } } }[]>;
}

/** Deps whose document client answers BatchWrite with `answer` (after a tick), recording calls and concurrency. */
function fakeDeps(answer: (input: Sent, call: number) => unknown) {
  const calls: Sent[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const db = {
    send: async (command: { input: Sent }) => {
      calls.push(command.input);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight--;
      return answer(command.input, calls.length);
    },
  };
  return { deps: { db } as unknown as Deps, calls, maxInFlight: () => maxInFlight };
}

const items = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ n: from + i }));
const written = (calls: Sent[], unprocessed: Set<number>) =>
  calls.flatMap((c) =>
    Object.values(c.RequestItems)
      .flat()
      .map((r) => r.PutRequest.Item.n)
      .filter((n) => !unprocessed.has(n)),
  );

describe('BulkWriter', () => {
  it('writes every item in batches of 25, at most `width` calls in flight, counting items per table', async () => {
    const fake = fakeDeps(() => ({}));
    const writer = new BulkWriter(fake.deps, { width: 3 });
    await writer.put('a', items(110));
    await writer.put('b', items(30, 1000));
    await writer.flush();
    expect(fake.calls.every((c) => Object.values(c.RequestItems).flat().length <= 25)).toBe(true);
    expect(written(fake.calls, new Set()).sort((x, y) => x - y)).toEqual([
      ...items(110).map((i) => i.n),
      ...items(30, 1000).map((i) => i.n),
    ]);
    expect(fake.maxInFlight()).toBeLessThanOrEqual(3);
    expect(writer.written).toEqual({ a: 110, b: 30 });
    expect(writer.items).toBe(140);
    expect(writer.calls).toBe(fake.calls.length);
  });

  it('resends UnprocessedItems until they are written, and counts only what was written', async () => {
    const refused = new Set<number>();
    const fake = fakeDeps((input, call) => {
      const puts = input.RequestItems.t ?? [];
      // The first call leaves its last 5 items unprocessed; they are accepted when resent.
      if (call === 1) {
        const left = puts.slice(-5);
        for (const r of left) refused.add(r.PutRequest.Item.n);
        return { UnprocessedItems: { t: left } };
      }
      return {};
    });
    const writer = new BulkWriter(fake.deps, { width: 1, baseDelayMs: 1 });
    await writer.put('t', items(50));
    await writer.flush();
    expect(writer.retries).toBe(1);
    expect(writer.items).toBe(50);
    expect(fake.calls).toHaveLength(3);
    expect(fake.calls[1]!.RequestItems.t!.map((r) => r.PutRequest.Item.n)).toEqual([...refused]);
  });

  it('fails flush (and later puts) with the first error', async () => {
    const fake = fakeDeps(() => {
      throw new Error('DynamoDB is down');
    });
    const writer = new BulkWriter(fake.deps);
    await writer.put('t', items(10));
    await expect(writer.flush()).rejects.toThrow('DynamoDB is down');
    await expect(writer.put('t', items(1))).rejects.toThrow('DynamoDB is down');
  });
});
