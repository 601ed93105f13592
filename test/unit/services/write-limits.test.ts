import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { firmWritePolicy, takeFirmWriteToken } from '../../../shared/services/write-limits.js';
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
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 10, burst: 20 });
    db.on(GetCommand).resolves(firmItem('LEDGER'));
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 10, burst: 20 });
    expect(db.commandCalls(GetCommand)).toHaveLength(1);
    now += 60_001;
    expect(await firmWritePolicy(deps, 'f1')).toEqual({ ratePerSecond: 20, burst: 40 });
    expect(db.commandCalls(GetCommand)).toHaveLength(2);
  });

  it('answers the token and what the client is told', async () => {
    db.on(GetCommand).resolves(firmItem('BOTH'));
    db.on(UpdateCommand).callsFake((input: { ExpressionAttributeValues: Record<string, number> }) => ({
      Attributes: { tat: input.ExpressionAttributeValues[':next'] },
    }));
    const taken = await takeFirmWriteToken(deps, 'f2');
    expect(taken).toEqual({
      policy: { ratePerSecond: 20, burst: 40 },
      view: { allowed: true, remaining: 39, nextTokenSeconds: 1 },
      now: now * 1000,
      holdUntil: null,
    });
  });
});
