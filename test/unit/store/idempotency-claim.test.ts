import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { claimIdempotencyKey } from '../../../shared/store/idempotency-store.js';
import { mockedStore } from '../../support/mocked-store.js';

const clock = { now: () => new Date('2026-11-28T07:00:00Z') };
const { db, deps } = mockedStore({ clock } as never);
const request = { firmId: 'firm_1', key: 'key-1', fingerprint: 'fp' };
const conditionFailed = () => new ConditionalCheckFailedException({ message: 'failed', $metadata: {} });

beforeEach(() => db.reset());

/** The item the claim's Put wrote (its first attempt committed; the answer was lost and the SDK retried). */
function firstAttemptCommittedThenRetried(): { written: () => Record<string, unknown> } {
  let written: Record<string, unknown> = {};
  db.on(PutCommand).callsFake((input: { Item: Record<string, unknown> }) => {
    written = input.Item;
    throw conditionFailed();
  });
  db.on(GetCommand).callsFake(() => ({ Item: written }));
  return { written: () => written };
}

describe('claimIdempotencyKey', () => {
  it('takes a failed condition on its own first attempt (the same token) as its claim, not as "in progress"', async () => {
    const put = firstAttemptCommittedThenRetried();
    const claimed = await claimIdempotencyKey(deps, request);
    expect(claimed).toMatchObject({ kind: 'claimed', claim: { token: put.written().token } });
  });

  it('still answers "in progress" for another request holding the key', async () => {
    db.on(PutCommand).rejects(conditionFailed());
    const now = clock.now().getTime();
    db.on(GetCommand).resolves({
      Item: {
        token: 'another request',
        fingerprint: 'fp',
        state: 'IN_PROGRESS',
        lockedUntil: now + 30_000,
        ttl: now / 1000 + 86_400,
      },
    });
    expect(await claimIdempotencyKey(deps, request)).toMatchObject({ kind: 'in-progress' });
  });
});
