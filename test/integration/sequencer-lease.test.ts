import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { checkRecord } from '../../shared/ledger/verify.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { keys } from '../../shared/store/keys.js';
import { queryRecordRange, readHead } from '../../shared/store/ledger-store.js';
import { acquireLease, readLease, releaseLease } from '../../shared/store/sequencer-lease-store.js';
import { createFirm, stackDeps, type TestFirm } from './helpers.js';

/**
 * The released sequencer lease (docs/architecture.md §5): a holder that lets go leaves the chain head it knows in
 * the lease item, and the next holder takes it with the lease instead of reading the head. The head it leaves is
 * a hint: a chain that moved on without the lease still gets the next record at the right place.
 */

const actor = { id: 'usr_test', name: 'Tess Tester', fcaRef: null };

function appendOne(deps: Deps, firm: TestFirm, n: number): Promise<LedgerRecord> {
  return appendRecord(deps, {
    firmId: firm.firmId,
    eventType: 'GENERATION_RECORDED',
    actor,
    documentMetadata: { n },
  });
}

async function leaseItem(firm: TestFirm): Promise<Record<string, unknown> | undefined> {
  const deps = stackDeps();
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.ledger,
      Key: keys.sequencerLease(firm.firmId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

/** Waits until the lease item is a released one (the appending lane has let go). */
async function released(firm: TestFirm): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const item = await leaseItem(firm);
    if (item && item.holder === undefined) return item;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('The sequencer lease was never released');
}

const headOf = (record: LedgerRecord) => ({
  sequenceNumber: record.sequenceNumber,
  chainHash: record.chainHash,
  timestamp: record.timestamp,
});

describe('the released sequencer lease', () => {
  it('holds the head a lone append committed, and hands it to the next holder with the lease', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    await appendOne(deps, firm, 1);
    const record = await appendOne(deps, firm, 2);
    const item = await released(firm);
    expect(item).toMatchObject({
      until: 0,
      headSequenceNumber: record.sequenceNumber,
      headChainHash: record.chainHash,
      headTimestamp: record.timestamp,
    });
    // Released is free: nobody holds it, and conditions on a held lease fail on it.
    expect(await readLease(deps, firm.firmId)).toBeNull();

    expect(await acquireLease(deps, firm.firmId, 'holder-a', 60_000)).toEqual({
      taken: true,
      head: headOf(record),
    });
    expect(await readLease(deps, firm.firmId)).toMatchObject({ holder: 'holder-a' });
    expect(await acquireLease(deps, firm.firmId, 'holder-b', 60_000)).toEqual({ taken: false });
    // Given up without a head (a holder failing): the next holder must read it.
    await releaseLease(deps, firm.firmId, 'holder-a');
    expect(await acquireLease(deps, firm.firmId, 'holder-b', 60_000)).toEqual({ taken: true, head: null });
    await releaseLease(deps, firm.firmId, 'holder-b', await readHead(deps, firm.firmId));
    expect((await appendOne(deps, firm, 3)).sequenceNumber).toBe(record.sequenceNumber + 1);
  });

  it('gives no head when the lease ran out under its holder (it died or froze)', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.ledger,
        Item: { ...keys.sequencerLease(firm.firmId), holder: 'dead-instance', until: Date.now() - 1 },
      }),
    );
    expect(await acquireLease(deps, firm.firmId, 'holder-a', 60_000)).toEqual({ taken: true, head: null });
  });

  it('is only a hint: a head left behind the chain costs a placement, never a fork', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    const first = await appendOne(deps, firm, 1);
    await appendOne(deps, firm, 2);
    await released(firm);
    // The lease says the chain ends at record 1 (as if a holder whose lease ran out committed record 2 after it).
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.ledger,
        Item: {
          ...keys.sequencerLease(firm.firmId),
          until: 0,
          headSequenceNumber: first.sequenceNumber,
          headChainHash: first.chainHash,
          headTimestamp: first.timestamp,
        },
      }),
    );
    const third = await appendOne(deps, firm, 3);
    expect(third.sequenceNumber).toBe(3);
    const records = await queryRecordRange(deps, firm.firmId, 1, 100, 'asc');
    expect(records.map((r) => r.sequenceNumber)).toEqual([1, 2, 3]);
    let previous: string | null = null;
    for (const record of records) {
      expect(checkRecord(record, previous)).toEqual([]);
      previous = record.chainHash;
    }
  });
});
