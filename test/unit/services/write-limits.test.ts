import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  firmWritePolicy,
  releaseFirmWriteSlot,
  takeFirmWriteToken,
} from '../../../shared/services/write-limits.js';
import { mockedStore } from '../../support/mocked-store.js';

/** In AWS without FIRM_WRITE_RATE_PER_S: the firm's plan sets its policy, read at most once a minute. */
let now = Date.parse('2026-11-26T12:00:00Z');
const { db, deps } = mockedStore({
  clock: { now: () => new Date(now) },
});

const firmItem = (plan: string) => ({ Item: { pk: 'FIRM#f1', sk: 'FIRM', id: 'f1', plan } });

beforeAll(() => {
  delete process.env.FIRM_WRITE_RATE_PER_S;
  process.env.GLS_RUNTIME = 'aws';
});
afterAll(() => {
  delete process.env.GLS_RUNTIME;
});
beforeEach(() => db.reset());

describe('firmWritePolicy in AWS', () => {
  it("takes the firm's plan, and reads it again only after a minute", async () => {
    db.on(GetCommand).resolves(firmItem('PRINCIPAL'));
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 10, burst: 20, concurrency: 1 });
    db.on(GetCommand).resolves(firmItem('LEDGER'));
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 10, burst: 20, concurrency: 1 });
    expect(db.commandCalls(GetCommand)).toHaveLength(1);
    now += 60_001;
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 20, burst: 40, concurrency: 2 });
    expect(db.commandCalls(GetCommand)).toHaveLength(2);
  });

  it("answers the token, the slot it holds under the plan's cap, and what the client is told", async () => {
    db.on(GetCommand).resolves(firmItem('BOTH'));
    db.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, number> }) => ({
      Attributes: {
        tat: input.ExpressionAttributeValues[':next'],
        slot0: input.ExpressionAttributeValues[':lease'],
      },
    }));
    const taken = await takeFirmWriteToken(deps, 'f2');
    const leaseEnd = now * 1000 + 30_000_000;
    expect(taken).toEqual({
      policy: { ratePerSecond: 20, burst: 40, concurrency: 2 },
      view: { allowed: true, remaining: 39, nextTokenSeconds: 1 },
      now: now * 1000,
      holdUntil: null,
      slot: { slot: 0, leaseEnd },
    });

    db.reset();
    db.on(UpdateCommand).resolves({ Attributes: {} });
    await releaseFirmWriteSlot(deps, 'f2', taken!);
    expect(db.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({
      UpdateExpression: 'REMOVE #slot',
      ExpressionAttributeNames: { '#slot': 'slot0' },
      ExpressionAttributeValues: { ':lease': leaseEnd },
    });
  });

  it("refuses by the plan's cap without a token, held for the Retry-After it tells", async () => {
    db.on(GetCommand).resolves(firmItem('PRINCIPAL'));
    const lease = { N: String(now * 1000 + 20_000_000) };
    db.on(UpdateCommand).rejects(
      new ConditionalCheckFailedException({
        message: 'failed',
        $metadata: {},
        Item: { tat: { N: String(now * 1000 + 100_000) }, slot0: lease },
      }),
    );
    const taken = await takeFirmWriteToken(deps, 'f3');
    expect(taken).toMatchObject({
      view: { allowed: false, remaining: 19, nextTokenSeconds: 1 },
      refusedBy: 'concurrency',
      holdUntil: now * 1000 + 1_000_000,
    });
    expect(taken!.slot).toBeUndefined();
    expect(db.commandCalls(UpdateCommand)).toHaveLength(1);
  });
});
