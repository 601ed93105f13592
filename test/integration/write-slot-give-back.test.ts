import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { TransactItem } from '../../shared/store/conditional-write.js';
import { keys } from '../../shared/store/keys.js';
import { slotGiveBackItem } from '../../shared/store/rate-limit-store.js';
import { runHoldingSlot } from '../../shared/store/write-slot-context.js';
import { createFirm, stackDeps, type TestFirm } from './helpers.js';

/**
 * Issue 19, part 6, the concurrency cap: a request's first ledger append gives its slot back in its own
 * transaction (shared/store/write-slot-context.ts), so an admitted write costs no give-back call; a request whose
 * append failed, or that appended nothing, keeps its slot for the give-back after its answer. Against the shared
 * stack's DynamoDB Local, with the bucket's item written directly.
 */

const deps = stackDeps();
const actor = { id: 'usr_test', name: 'Tess Tester', fcaRef: null };
const held = { slot: 1, leaseEnd: Date.now() * 1000 + 30_000_000 };

async function holdSlot(firm: TestFirm): Promise<void> {
  await deps.db.send(
    new PutCommand({
      TableName: deps.tables.main,
      Item: { ...keys.writeBucket(firm.firmId), tat: 0, slot0: held.leaseEnd, slot1: held.leaseEnd },
    }),
  );
}

async function bucket(firm: TestFirm): Promise<Record<string, unknown>> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.writeBucket(firm.firmId), ConsistentRead: true }),
  );
  return Item ?? {};
}

const append = (firm: TestFirm, n: number, extras: TransactItem[] = []) =>
  appendRecord(
    deps,
    { firmId: firm.firmId, eventType: 'GENERATION_RECORDED', actor, documentMetadata: { n } },
    { with: extras },
  );

describe("a write slot's give-back rides in the request's first ledger append", () => {
  it("frees the slot in the record's own transaction, once, and leaves the other slots alone", async () => {
    const firm = await createFirm();
    await holdSlot(firm);
    const { outcome, given } = await runHoldingSlot(slotGiveBackItem(deps, firm.firmId, held), async () => {
      await append(firm, 1);
      // Given back already: the request's next append carries nothing.
      await append(firm, 2);
    });
    expect(outcome.status).toBe('fulfilled');
    expect(given).toBe(true);
    const item = await bucket(firm);
    expect(item.slot1).toBeUndefined();
    expect(item.slot0).toBe(held.leaseEnd);
  });

  it('keeps the slot when the append fails, for the give-back after the answer', async () => {
    const firm = await createFirm();
    await holdSlot(firm);
    const failing: TransactItem = {
      ConditionCheck: {
        TableName: deps.tables.main,
        Key: { pk: `FIRM#${firm.firmId}`, sk: 'NO#SUCH#ITEM' },
        ConditionExpression: 'attribute_exists(pk)',
      },
    };
    const { outcome, given } = await runHoldingSlot(slotGiveBackItem(deps, firm.firmId, held), () =>
      append(firm, 1, [failing]),
    );
    expect(outcome.status).toBe('rejected');
    expect(given).toBe(false);
    expect((await bucket(firm)).slot1).toBe(held.leaseEnd);
  });
});
