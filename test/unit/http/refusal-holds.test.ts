import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Principal } from '../../../shared/domain/auth/principal.js';
import { RateLimitedError } from '../../../shared/errors.js';
import {
  limitFirmWrites,
  refuseHeldCredential,
  withRateLimitHeaders,
} from '../../../shared/http/rate-limit.js';
import { ROUTES } from '../../../shared/routes.js';
import { mockedStore } from '../../support/mocked-store.js';

/** FIRM_WRITE_RATE_PER_S=2, burst 3: a drained bucket gets its next token 0.5 s later, so Retry-After is 1 s. */
let now = Date.parse('2026-11-26T12:00:00Z');
const { db, deps } = mockedStore({
  clock: { now: () => new Date(now) },
});

const createIncident = ROUTES.find((r) => r.operationId === 'createIncident')!;
const updateIncident = ROUTES.find((r) => r.operationId === 'updateIncident')!;
const principal: Principal = { kind: 'apiKey', firmId: 'f1', keyId: 'k1', name: 'Integration' };
const eventOf = (key: string) =>
  ({
    headers: { 'x-service-key': key },
    requestContext: { requestId: 'r' },
  }) as unknown as APIGatewayProxyEventV2;

/** The bucket is drained: every UpdateItem fails its condition and returns tat 1.5 s ahead. */
function drainedBucket() {
  db.on(UpdateCommand).rejects(
    new ConditionalCheckFailedException({
      message: 'The conditional request failed',
      $metadata: {},
      Item: { tat: { N: String((now + 1_500) * 1000) } },
    }),
  );
}

async function refusal(run: () => unknown): Promise<RateLimitedError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof RateLimitedError) return error;
    throw error;
  }
  throw new Error('not refused');
}

beforeAll(() => {
  process.env.FIRM_WRITE_RATE_PER_S = '2';
  process.env.FIRM_WRITE_BURST = '3';
});
afterAll(() => {
  delete process.env.FIRM_WRITE_RATE_PER_S;
  delete process.env.FIRM_WRITE_BURST;
});
beforeEach(() => db.reset());

describe('held refusals', () => {
  it('refuses a credential again from memory until its Retry-After, with no DynamoDB call', async () => {
    drainedBucket();
    const first = eventOf('gls_held_1');
    const refused = await refusal(() => limitFirmWrites(deps, createIncident, principal, first));
    expect(refused.retryAfterSeconds).toBe(1);
    const calls = db.calls().length;
    expect(calls).toBeGreaterThan(0);

    now += 400;
    const again = eventOf('gls_held_1');
    const held = await refusal(() => refuseHeldCredential(deps, createIncident, again));
    expect(held.retryAfterSeconds).toBe(1);
    expect(withRateLimitHeaders(again, { statusCode: 429 }).headers).toEqual({
      'ratelimit-policy': '"firm-writes";q=3;w=2',
      ratelimit: '"firm-writes";r=0;t=1',
    });
    expect(db.calls()).toHaveLength(calls);

    // Another credential, or the same one on another route, is not held: it goes to the bucket.
    expect(() => refuseHeldCredential(deps, createIncident, eventOf('gls_other'))).not.toThrow();
    expect(() => refuseHeldCredential(deps, updateIncident, eventOf('gls_held_1'))).not.toThrow();

    // After the hold (the Retry-After), the credential is checked against the bucket again.
    now += 600;
    expect(() => refuseHeldCredential(deps, createIncident, eventOf('gls_held_1'))).not.toThrow();
  });

  it('does nothing on a route that does not write the ledger', () => {
    const listIncidents = ROUTES.find((r) => r.operationId === 'listIncidents')!;
    expect(() => refuseHeldCredential(deps, listIncidents, eventOf('gls_held_1'))).not.toThrow();
  });
});
