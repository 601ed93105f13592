import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { LEASE_TTL_MS } from '../../shared/ledger-writer/sequencer.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { checkRecord } from '../../shared/ledger/verify.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { immutableFirmPrefix } from '../../shared/store/immutable-layout.js';
import { headAt, queryRecordRange, readHead } from '../../shared/store/ledger-store.js';
import { acquireLease, readLease, releaseLease } from '../../shared/store/sequencer-lease-store.js';
import { keys } from '../../shared/store/keys.js';
import { createFirm, stackDeps, type TestFirm } from './helpers.js';

/**
 * The sequencer's group commit, in process (docs/architecture.md §5). Each Deps here is one instance (its own
 * sequencer lanes). When an instance dies (its DynamoDB calls stop answering from a chosen point on, as a killed
 * Lambda's would), whatever the moment, no acknowledged append is lost, the chain stays gapless and valid, and the
 * other instances' appends complete once the dead holder's lease runs out (LEASE_TTL_MS). Also: items an append
 * creates under fresh ids, the lone append's lease given up in its commit, and the released lease that hands the
 * chain head to the next holder.
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

type Send = (command: unknown) => Promise<unknown>;

/** An instance (its own Deps) whose DynamoDB commands go through `intercept`, which may send them on with `send`. */
function interceptedInstance(intercept: (command: unknown, send: Send) => Promise<unknown>): Deps {
  const base = stackDeps();
  const db = Object.create(base.db) as Deps['db'];
  const send = base.db.send.bind(base.db) as Send;
  db.send = ((command: unknown) => intercept(command, send)) as Deps['db']['send'];
  return { ...base, db };
}

/**
 * An instance whose DynamoDB calls hang forever once `dies(command, calls)` says so (that call included when
 * `includeTrigger`, else from the next call on): a process killed at that moment.
 */
function mortalInstance(
  dies: (command: unknown) => boolean,
  includeTrigger: boolean,
  delayMs: (command: unknown) => number = () => 0,
): Deps {
  let dead = false;
  let gone = false;
  const hanging: Array<(error: Error) => void> = [];
  const hang = () =>
    gone
      ? Promise.reject(new Error('The instance is gone'))
      : new Promise((_, reject) => hanging.push(reject));
  // Once its test is over, the dead instance is gone (its process ended): its hung calls fail, so nothing of it
  // is left running when the file ends.
  goneAfterTest.push(() => {
    gone = true;
    for (const reject of hanging.splice(0)) reject(new Error('The instance is gone'));
  });
  return interceptedInstance(async (command, send) => {
    const delay = delayMs(command);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (dead) return hang();
    if (dies(command)) {
      dead = true;
      if (includeTrigger) return hang();
      return send(command);
    }
    return send(command);
  });
}

const goneAfterTest: Array<() => void> = [];
afterEach(() => {
  for (const end of goneAfterTest.splice(0)) end();
});

const isCommit = (command: unknown) => command instanceof TransactWriteCommand;

async function waitForLeaseHolder(firm: TestFirm): Promise<void> {
  const deps = stackDeps();
  for (let i = 0; i < 200; i++) {
    if (await readLease(deps, firm.firmId)) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('Nobody took the sequencer lease');
}

/** The firm's whole chain is 1..head, each record linked, hashed and signed correctly. */
async function expectSoundChain(firm: TestFirm): Promise<LedgerRecord[]> {
  const deps = stackDeps();
  const head = await readHead(deps, firm.firmId);
  const records = await queryRecordRange(deps, firm.firmId, 1, 1_000_000, 'asc');
  expect(records.map((r) => r.sequenceNumber)).toEqual(
    Array.from({ length: head.sequenceNumber }, (_, i) => i + 1),
  );
  let previous: string | null = null;
  for (const record of records) {
    expect(checkRecord(record, previous)).toEqual([]);
    previous = record.chainHash;
  }
  return records;
}

describe('group commit when an instance dies', () => {
  it('a holder that dies before its commit delays the others by one lease, and loses nothing acknowledged', async () => {
    const firm = await createFirm();
    const before = (await readHead(stackDeps(), firm.firmId)).sequenceNumber;
    const dying = mortalInstance(isCommit, true);
    // Never answers: its caller got no acknowledgement (it fails once the instance is gone, after the test).
    appendOne(dying, firm, -1).catch(() => undefined);
    await waitForLeaseHolder(firm);

    const started = Date.now();
    const instances = Array.from({ length: 4 }, () => stackDeps());
    const appended = await Promise.all(
      Array.from({ length: 8 }, (_, n) => appendOne(instances[n % 4]!, firm, n)),
    );
    // They waited for the dead holder's lease to run out, then one of them took over.
    expect(Date.now() - started).toBeGreaterThanOrEqual(LEASE_TTL_MS / 2);

    const records = await expectSoundChain(firm);
    expect(records).toHaveLength(before + 8);
    for (const record of appended) expect(records[record.sequenceNumber - 1]).toEqual(record);
  });

  it('a holder that dies right after its commit leaves every waiting instance its result', async () => {
    const firm = await createFirm();
    const before = (await readHead(stackDeps(), firm.firmId)).sequenceNumber;
    // The dying holder reads the head slowly, so the others' intents are in its batch; it dies once committed.
    let reads = 0;
    const dying = mortalInstance(isCommit, false, (command) =>
      command instanceof GetCommand && ++reads === 1 ? 500 : 0,
    );
    appendOne(dying, firm, 0).catch(() => undefined); // its caller never hears, as above
    await waitForLeaseHolder(firm);
    const instances = Array.from({ length: 4 }, () => stackDeps());
    const appended = await Promise.all(
      Array.from({ length: 8 }, (_, n) => appendOne(instances[n % 4]!, firm, n + 1)),
    );

    const records = await expectSoundChain(firm);
    // The dead holder's own append committed too (its caller never heard: a retry would append it again).
    expect(records).toHaveLength(before + 9);
    for (const record of appended) expect(records[record.sequenceNumber - 1]).toEqual(record);
    // Appends go on after it, and the outbox sweep copies whatever the dead holder left unarchived.
    await appendOne(stackDeps(), firm, 99);
    const deps = stackDeps();
    const head = await readHead(deps, firm.firmId);
    for (let i = 0; ; i++) {
      let copies = 0;
      for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firm.firmId))) {
        void key;
        copies += 1;
      }
      if (copies === head.sequenceNumber) break;
      if (i > 150) throw new Error(`${copies} immutable copies for ${head.sequenceNumber} records`);
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});

/** An instance whose DynamoDB commands are recorded, and may be preceded by `before(command)`. */
function watchedInstance(before: (command: unknown) => Promise<void> = async () => undefined) {
  const sent: unknown[] = [];
  const deps = interceptedInstance(async (command, send) => {
    await before(command);
    sent.push(command);
    return send(command);
  });
  return { deps, sent };
}

/** Does the command give the sequencer lease up (a Put of `SEQUENCER` without a holder, alone or in a transaction)? */
function releasesLease(command: unknown): boolean {
  const isRelease = (item?: Record<string, unknown>) => item?.sk === 'SEQUENCER' && item.holder === undefined;
  if (command instanceof PutCommand) return isRelease(command.input.Item);
  if (command instanceof TransactWriteCommand)
    return (command.input.TransactItems ?? []).some((item) => isRelease(item.Put?.Item));
  return false;
}

/** Is the command a transaction of ConditionChecks only (an append's conditions checked before signing)? */
const isPreCheck = (command: unknown) =>
  command instanceof TransactWriteCommand &&
  (command.input.TransactItems ?? []).every((item) => item.ConditionCheck !== undefined);

describe('items an append creates under fresh ids (AppendOptions.creates)', () => {
  const createdItem = (deps: Deps, firm: TestFirm, id: string) => ({
    Put: {
      TableName: deps.tables.main,
      Item: { pk: `FIRM#${firm.firmId}`, sk: `TEST#${id}`, id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });

  it('are committed with the record, and no transaction checks them before signing', async () => {
    const firm = await createFirm();
    const { deps, sent } = watchedInstance();
    const record = await appendRecord(
      deps,
      { firmId: firm.firmId, eventType: 'GENERATION_RECORDED', actor, documentMetadata: { n: 1 } },
      { creates: [createdItem(deps, firm, 'fresh-1')] },
    );
    expect(sent.filter(isPreCheck)).toEqual([]);
    const { Item } = await stackDeps().db.send(
      new GetCommand({ TableName: deps.tables.main, Key: { pk: `FIRM#${firm.firmId}`, sk: 'TEST#fresh-1' } }),
    );
    expect(Item).toMatchObject({ id: 'fresh-1' });
    expect((await expectSoundChain(firm)).at(-1)).toEqual(record);
  });

  it('still fail their append alone, at the commit, when something was in the way after all', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    await deps.db.send(new PutCommand(createdItem(deps, firm, 'taken').Put));
    const results = await Promise.allSettled(
      [1, 2, 3].map((n) =>
        appendRecord(
          deps,
          { firmId: firm.firmId, eventType: 'GENERATION_RECORDED', actor, documentMetadata: { n } },
          {
            creates: [createdItem(deps, firm, n === 2 ? 'taken' : `fresh-${n}`)],
            onConflict: () => new Error('collision'),
          },
        ),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('collision'));
    const chain = await expectSoundChain(firm);
    expect(chain.map((r) => (r.documentMetadata as { n: number }).n).sort()).toEqual([1, 3]);
  });
});

describe('the sequencer lease of a lone append', () => {
  it('is given up in the append’s own commit, not by a call after it', async () => {
    const firm = await createFirm();
    const { deps, sent } = watchedInstance();
    const record = await appendOne(deps, firm, 1);
    // The lane's loop ends after one more look for intents.
    for (let i = 0; i < 100 && (await readLease(stackDeps(), firm.firmId)); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await readLease(stackDeps(), firm.firmId)).toBeNull();
    const releases = sent.filter(releasesLease);
    expect(releases).toHaveLength(1);
    expect(releases[0]).toBeInstanceOf(TransactWriteCommand);
    expect((await expectSoundChain(firm)).at(-1)).toEqual(record);
  });

  it('is left alone when another instance took it meanwhile: the batch commits without the release', async () => {
    const firm = await createFirm();
    const other = { holder: 'another-instance', until: Date.now() + 60_000 };
    let taken = false;
    // Just before the commit that would release the lease, another instance holds it (this one's ran out).
    const { deps } = watchedInstance(async (command) => {
      if (taken || !(command instanceof TransactWriteCommand) || !releasesLease(command)) return;
      taken = true;
      await stackDeps().db.send(
        new PutCommand({
          TableName: stackDeps().tables.ledger,
          Item: { pk: `FIRM#${firm.firmId}`, sk: 'SEQUENCER', ...other },
        }),
      );
    });
    const record = await appendOne(deps, firm, 1);
    expect(taken).toBe(true);
    expect(await readLease(stackDeps(), firm.firmId)).toEqual(other);
    expect((await expectSoundChain(firm)).at(-1)).toEqual(record);
  });
});

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

/** A holder that lets go leaves the head it knows in the lease; the next holder takes it with the lease. */
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
      head: headAt(record),
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
    expect((await expectSoundChain(firm)).map((r) => r.sequenceNumber)).toEqual([1, 2, 3]);
  });
});
