import { BatchGetCommand, GetCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { countFirmTransients, scanTransients } from '../../../bench/lib/transient-items.js';
import { sha256Hex } from '../../../shared/ledger/hashing.js';
import { keys } from '../../../shared/store/keys.js';
import { mockedStore } from '../../support/mocked-store.js';

const NOW = Date.parse('2026-11-28T12:00:00Z');
const nowSeconds = NOW / 1000;
const { db, deps } = mockedStore();

beforeEach(() => db.reset());

describe('bench/lib/transient-items', () => {
  it('counts every transient shape in both tables, with what has run out, across scan pages', async () => {
    db.on(ScanCommand, { TableName: 'ledger' })
      .resolvesOnce({
        Items: [
          { pk: 'FIRM#a', sk: 'APPEND#r1', state: 'PENDING' },
          { pk: 'FIRM#a', sk: 'APPEND#r2', state: 'FAILED', settledAt: '2026-11-28T11:58:00Z' },
          { pk: 'FIRM#a', sk: 'APPEND#r3', state: 'FAILED', settledAt: '2026-11-28T11:59:50Z' },
          { pk: 'FIRM#a', sk: 'OUTBOX#000000000007' },
        ],
        LastEvaluatedKey: { pk: 'FIRM#a', sk: 'OUTBOX#000000000007' },
      })
      .resolvesOnce({
        Items: [
          { pk: 'FIRM#a', sk: 'SEQUENCER', until: 0 },
          { pk: 'FIRM#a', sk: 'LOGLEASE', until: NOW + 5_000 },
          { pk: 'FIRM#a', sk: 'REC#000000000001' },
        ],
      });
    db.on(ScanCommand, { TableName: 'main' }).resolves({
      Items: [
        { pk: 'FIRM#a', sk: 'RATELIMIT#WRITES', tat: 1, slot0: NOW * 1000 + 1, slot1: NOW * 1000 - 1 },
        { pk: 'IDEMPOTENCY#a#h1', sk: 'IDEMPOTENCY', ttl: nowSeconds + 60 },
        { pk: 'IDEMPOTENCY#a#h2', sk: 'IDEMPOTENCY', ttl: nowSeconds },
        { pk: 'FIRM#a', sk: 'INC#i1' },
      ],
    });

    expect(await scanTransients(deps, NOW)).toEqual({
      scanned: 11,
      intentsPending: 1,
      intentsFailed: 2,
      intentsStale: 1,
      outbox: 1,
      leases: 2,
      leasesRunOut: 1,
      buckets: 1,
      slots: 2,
      slotsHeld: 1,
      idempotencyKeys: 2,
      idempotencyExpired: 1,
    });
  });

  it("reads a firm's items by key and looks up the given Idempotency-Keys, retrying unprocessed ones", async () => {
    db.on(QueryCommand).resolves({ Items: [] });
    db.on(QueryCommand, { ExpressionAttributeValues: { ':pk': 'FIRM#a', ':prefix': 'APPEND#' } }).resolves({
      Items: [{ pk: 'FIRM#a', sk: 'APPEND#r1', state: 'PENDING' }],
    });
    db.on(GetCommand).resolves({});
    db.on(GetCommand, { Key: keys.sequencerLease('a') }).resolves({
      Item: { ...keys.sequencerLease('a'), until: NOW - 1 },
    });
    const first = keys.idempotencyKey('a', sha256Hex('k1'));
    const second = keys.idempotencyKey('a', sha256Hex('k2'));
    db.on(BatchGetCommand)
      .resolvesOnce({
        Responses: { main: [{ ...first, ttl: nowSeconds + 86_400 }] },
        UnprocessedKeys: { main: { Keys: [second] } },
      })
      .resolvesOnce({ Responses: { main: [{ ...second, ttl: nowSeconds + 86_400 }] } });

    const counts = await countFirmTransients(
      deps,
      ['a'],
      [
        { firmId: 'a', key: 'k1' },
        { firmId: 'a', key: 'k2' },
      ],
      NOW,
    );

    expect(counts).toMatchObject({
      intentsPending: 1,
      outbox: 0,
      leases: 1,
      leasesRunOut: 1,
      buckets: 0,
      idempotencyKeys: 2,
      idempotencyExpired: 0,
    });
    expect(db.commandCalls(BatchGetCommand)[0]!.args[0].input.RequestItems!.main!.Keys).toEqual([
      first,
      second,
    ]);
    expect(db.commandCalls(BatchGetCommand)[1]!.args[0].input.RequestItems!.main!.Keys).toEqual([second]);
  });
});
