import type { LedgerRecord } from '../../shared/ledger/record.js';
import { checkRecord } from '../../shared/ledger/verify.js';
import { localMetrics, startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import {
  call,
  chainOf,
  incidentBody,
  onboardFirm,
  type StackResponse,
  verifyChain,
} from '../support/stack-client.js';

/**
 * Group commit over HTTP on a stack run like Lambda (8 instances, one invocation each at a time, a signer with
 * KMS-like latency): 64 concurrent requests to one firm, mixing event kinds with atomic extra writes, some of
 * which fail their own conditions. Exactly the successful ones are committed, the chain is gapless and sound,
 * and each committed record cost exactly one Sign.
 */

describe('64 concurrent appends to one firm from 8 instances', () => {
  let stack: RunningStack;

  beforeAll(async () => {
    // Checkpoints off: this test counts the records' Signs, and checkpoint Signs share the stack's counter.
    stack = await startStack({ instances: 8, env: { SIGNER_LATENCY_MS: '5', CHECKPOINT_INTERVAL_MS: '0' } });
  });

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('commits exactly the successful ones, gapless, verified, one Sign per record', async () => {
    const firm = await onboardFirm(stack);
    // Four open incidents: each will get four concurrent, competing closes.
    const open: string[] = [];
    for (let n = 0; n < 4; n++) {
      const created = await call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        body: incidentBody(100 + n, n % 2 === 0 ? 'LOW' : 'MEDIUM'),
      });
      expect(created.status).toBe(201);
      open.push(created.body.id as string);
    }
    const chainBefore = await chainOf(stack, firm.key);
    const signsBefore = (await localMetrics(stack)).signCalls;

    // 48 INCIDENT_LOGGED (record + incident item) and 16 closes (INCIDENT_RESOLVED + the incident's versioned
    // update): of the four closes of one incident exactly one commits; the other three fail their own condition
    // (the version moved), re-read a CLOSED incident and answer 409 for their different root cause.
    const logged = Array.from({ length: 48 }, (_, n) =>
      call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        body: incidentBody(n, n % 2 === 0 ? 'LOW' : 'MEDIUM'),
      }),
    );
    const closes = open.flatMap((id) =>
      Array.from({ length: 4 }, (_, n) =>
        call(stack, 'POST', `/v1/incidents/${id}`, {
          key: firm.key,
          body: { status: 'CLOSED', rootCause: `Root cause ${n}` },
        }).then((response) => ({ id, response })),
      ),
    );
    const [created, closed] = await Promise.all([Promise.all(logged), Promise.all(closes)]);

    expect(created.map((r) => r.status)).toEqual(Array(48).fill(201));
    for (const id of open) {
      const statuses = closed
        .filter((c) => c.id === id)
        .map((c) => c.response.status)
        .sort();
      expect(statuses).toEqual([200, 409, 409, 409]);
    }
    const conflicts = closed.map((c) => c.response).filter((r) => r.status === 409);
    for (const response of conflicts) expect(response.body.error.code).toBe('CONFLICT');
    // They ran on several instances.
    const instances = new Set(
      [...created, ...closed.map((c) => c.response)].map((r: StackResponse) =>
        r.headers.get('x-local-instance'),
      ),
    );
    expect(instances.size).toBeGreaterThan(1);

    // The chain: gapless 1..n, every record hashed, linked and signed; exactly the successful appends added.
    const chain = await chainOf(stack, firm.key);
    expect(chain.map((r) => r.sequenceNumber)).toEqual(chain.map((_, i) => i + 1));
    let previous: string | null = null;
    for (const record of chain) {
      expect(checkRecord(record, previous)).toEqual([]);
      previous = record.chainHash;
    }
    const added = chain.slice(chainBefore.length);
    expect(added).toHaveLength(48 + 4);
    const byType = (type: string) => added.filter((r: LedgerRecord) => r.eventType === type);
    expect(new Set(byType('INCIDENT_LOGGED').map((r) => r.documentMetadata.incidentId))).toEqual(
      new Set(created.map((r) => r.body.id)),
    );
    const resolved = byType('INCIDENT_RESOLVED');
    expect(resolved.map((r) => r.documentMetadata.incidentId).sort()).toEqual([...open].sort());
    // Each resolution record carries the root cause of the one close that answered 200.
    for (const record of resolved) {
      const winner = closed.find(
        (c) => c.id === record.documentMetadata.incidentId && c.response.status === 200,
      )!;
      expect(record.documentMetadata.rootCause).toBe(winner.response.body.rootCause);
    }

    // One Sign per committed record: none spent on a position then lost, none on an append that failed.
    const signs = (await localMetrics(stack)).signCalls - signsBefore;
    expect(signs).toBe(added.length);

    const { done } = await verifyChain(stack, firm.key);
    expect(done.result).toMatchObject({ complete: true, valid: true, brokenCount: 0 });
    expect(done.result.recordsChecked).toBe(chain.length);

    // The incident counters (two shards, updated in the records' transactions): appends of one batch add to a
    // shard together, summed into one update, and every committed change counts exactly once, none of a failed one.
    const stats = await call(stack, 'GET', '/v1/incidents/stats', { key: firm.key });
    expect(stats.body).toMatchObject({ total: 52, open: 48, resolved: 4, critical: 0 });
  });
});
