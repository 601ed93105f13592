import type { TransactItem } from '../../../shared/store/conditional-write.js';
import { runHoldingSlot, slotGiveBack } from '../../../shared/store/write-slot-context.js';

/** Which append of a request carries its write slot's give-back (issue 19, part 6). */

const giveBack: TransactItem = {
  Update: { TableName: 'main', Key: { pk: 'FIRM#f', sk: 'RATELIMIT#WRITES' }, UpdateExpression: 'REMOVE #s' },
};

describe('the write slot give-back', () => {
  it('is nothing outside a request holding a slot', () => {
    expect(slotGiveBack()).toBeUndefined();
  });

  it('rides with one append at a time, and is given once that append commits', async () => {
    const { outcome, given } = await runHoldingSlot(giveBack, async () => {
      const first = slotGiveBack();
      expect(first?.item).toBe(giveBack);
      // A second append while the first is on its way carries nothing.
      expect(slotGiveBack()).toBeUndefined();
      first!.settle(false);
      // The first failed: the next append carries it.
      const second = slotGiveBack();
      expect(second?.item).toBe(giveBack);
      second!.settle(true);
      expect(slotGiveBack()).toBeUndefined();
      return 'answered';
    });
    expect(outcome).toEqual({ status: 'fulfilled', value: 'answered' });
    expect(given).toBe(true);
  });

  it("answers not given when no append committed it, and the function's failure as its outcome", async () => {
    const failure = new Error('refused');
    const { outcome, given } = await runHoldingSlot(giveBack, async () => {
      slotGiveBack()!.settle(false);
      throw failure;
    });
    expect(outcome).toEqual({ status: 'rejected', reason: failure });
    expect(given).toBe(false);
  });

  it('carries nothing for work the request left running after it answered', async () => {
    let later: Promise<ReturnType<typeof slotGiveBack>> | undefined;
    await runHoldingSlot(giveBack, async () => {
      later = new Promise((resolve) => setTimeout(() => resolve(slotGiveBack()), 20));
    });
    expect(await later).toBeUndefined();
  });
});
