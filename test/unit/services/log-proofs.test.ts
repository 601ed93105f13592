import { ConflictError } from '../../../shared/errors.js';
import { toErrorResponse } from '../../../shared/http/errors.js';
import { NotYetCheckpointedError, recordProof } from '../../../shared/services/log-proofs.js';
import { mockedStore } from '../../support/mocked-store.js';

/*
 * A proof asked for a record no checkpoint covers yet waits for one (up to three CHECKPOINT_INTERVAL_MS), then
 * answers 409 CONFLICT with Retry-After: never a 5xx. The store is mocked: the record exists at sequence 5, and
 * the latest checkpoint stays at size 3 or catches up after a few polls.
 */

const FIRM = 'firm_1';
const CHAIN_HASH = 'ab'.repeat(32);

function store(latestSizes: number[]) {
  const { db, deps } = mockedStore();
  let polls = 0;
  db.onAnyCommand().callsFake((input: Record<string, unknown>) => {
    if (input.IndexName !== undefined)
      return {
        Items: [
          {
            pk: { S: `FIRM#${FIRM}` },
            sk: { S: 'REC#000000000005' },
            id: { S: 'rec_5' },
            sequenceNumber: { N: '5' },
            chainHash: { S: CHAIN_HASH },
          },
        ],
      };
    const key = input.Key as { sk: string } | undefined;
    if (key?.sk === 'LOGCHECKPOINT') {
      const size = latestSizes[Math.min(polls++, latestSizes.length - 1)]!;
      return {
        Item: { size, root: new Uint8Array(32), note: `o\n${size}\nroot\n\n— o sig\n`, signedAt: 'now' },
      };
    }
    // Leaf hashes 0..4: byte i repeated (the proof of leaf 4 in a tree of 5 is the root of leaves 0..3).
    if (key?.sk.startsWith('LOGTILE#'))
      return { Item: { width: 5, hashes: Uint8Array.from({ length: 160 }, (_, i) => Math.floor(i / 32)) } };
    if (String(input.KeyConditionExpression).includes('BETWEEN')) return { Items: [] };
    throw new Error(`Unexpected command ${JSON.stringify(input)}`);
  });
  return { deps, polls: () => polls };
}

describe('recordProof waiting for a checkpoint', () => {
  const saved = process.env.CHECKPOINT_INTERVAL_MS;
  beforeAll(() => (process.env.CHECKPOINT_INTERVAL_MS = '40'));
  afterAll(() => (process.env.CHECKPOINT_INTERVAL_MS = saved));

  it('polls the latest checkpoint for a bounded time, then answers 409 CONFLICT with Retry-After', async () => {
    const { deps, polls } = store([3]);
    const error = await recordProof(deps, FIRM, 'rec_5').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotYetCheckpointedError);
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as Error).message).toContain('latest tree size 3');
    // 3 × 40 ms polled every 20 ms or so: more than one poll (a loaded machine may delay the timers), not unbounded.
    expect(polls()).toBeGreaterThan(1);
    expect(polls()).toBeLessThan(20);
    const response = toErrorResponse(error, 'req');
    expect(response.statusCode).toBe(409);
    expect(response.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(response.body!).error.code).toBe('CONFLICT');
  });

  it('answers 409 at once, without Retry-After, when checkpoints are off', async () => {
    process.env.CHECKPOINT_INTERVAL_MS = '0';
    try {
      const { deps, polls } = store([3]);
      const error = await recordProof(deps, FIRM, 'rec_5').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(polls()).toBe(1);
      const response = toErrorResponse(error, 'req');
      expect(response.statusCode).toBe(409);
      expect(response.headers).not.toHaveProperty('retry-after');
      expect(JSON.parse(response.body!).error.message).toContain('checkpoints are off');
    } finally {
      process.env.CHECKPOINT_INTERVAL_MS = '40';
    }
  });

  it('answers as soon as a checkpoint covers the record', async () => {
    // A 2 s interval (a 6 s wait, polled every 250 ms), so the third poll comes well inside it however loaded the
    // machine is.
    process.env.CHECKPOINT_INTERVAL_MS = '2000';
    const { deps, polls } = store([3, 3, 5]);
    const proof = await recordProof(deps, FIRM, 'rec_5').finally(() => {
      process.env.CHECKPOINT_INTERVAL_MS = '40';
    });
    expect(polls()).toBe(3);
    expect(proof.split('\n').slice(0, 3)).toEqual(['c2sp.org/tlog-proof@v1', 'index 4', expect.any(String)]);
    expect(proof).toContain('\n\no\n5\nroot\n\n— o sig\n');
  });
});
