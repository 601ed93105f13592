import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { immutableFirmPrefix } from '../../shared/store/immutable-layout.js';
import type { RunningStack } from './local-stack.js';
import { call, chainOf, expectSoundChain, incidentBody, type StackResponse } from './stack-client.js';

/**
 * Issue 32's harness: the embedded stack (8 Lambda-like instances) under 12 concurrent writers and 4 readers while
 * one dependency stalls or fails for a few seconds (test/integration/dependency-faults-*.test.ts). What must hold
 * under every fault: each request answers 2xx or 503 with Retry-After in the envelope, within the budgets (BOUND_MS
 * below); nothing acknowledged is lost; the chain stays gapless and verifies; a write answered 503 was not
 * committed (its Idempotency-Key retried afterwards runs again instead of naming a committed record); copies and
 * deliveries catch up by themselves once the dependency is back.
 */

/** 16 concurrent clients on 8 instances, as in the issue's own trial (it ran 16 writers and 4 readers). */
const WRITERS = 12;
const READERS = 4;
export const INSTANCES = 8;
/**
 * The longest any request may run on its instance: the budgets (~17 s worst case: an append's 8 s wait, 3 s of doubt,
 * one 6 s call) plus a generous margin for a loaded 2-core machine; inside API Gateway's 30 s.
 */
export const BOUND_MS = 25_000;

export interface Answer {
  kind: 'write' | 'read';
  status: number;
  /**
   * How long the request ran on its instance (x-local-run-ms, Lambda's duration): without the wait for one of the 8
   * instances, which AWS does not have (it scales out) and the budgets do not bound.
   */
  ms: number;
  key?: string;
  /** A write's body, sent again with its key after the fault. */
  body?: unknown;
  incidentId?: string;
  response: StackResponse;
}

export async function setFault(
  stack: RunningStack,
  dependency: string,
  mode: 'fail' | 'stall',
  forMs: number,
): Promise<void> {
  const response = await fetch(`${stack.baseUrl}/__local/faults`, {
    method: 'POST',
    body: JSON.stringify({ dependency, mode, forMs }),
  });
  expect(response.status).toBe(204);
}

export async function clearFaults(stack: RunningStack): Promise<void> {
  expect((await fetch(`${stack.baseUrl}/__local/faults`, { method: 'DELETE' })).status).toBe(204);
}

/**
 * 12 writers (incidents, each with its own Idempotency-Key) and 4 readers (a page of records) run until `fault`
 * has run its course and one more second has passed; every answer is kept with its time. A fault is set for long
 * and cleared by the scenario once it has checked what it checks under it (requests queue for the 8 instances
 * under load, so a check's own request may wait seconds), so its length is a few seconds, not a race.
 */
export async function underLoad(
  stack: RunningStack,
  firm: { key: string },
  tag: string,
  fault: () => Promise<void>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let running = true;
  let n = 0;
  const writer = async () => {
    while (running) {
      const key = `${tag}-${n}`;
      const body = incidentBody(n++);
      const started = Date.now();
      const response = await call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        body,
        headers: { 'idempotency-key': key },
      });
      answers.push({
        kind: 'write',
        status: response.status,
        ms: runMs(response, started),
        key,
        body,
        ...(response.status === 201 ? { incidentId: response.body.id as string } : {}),
        response,
      });
    }
  };
  const reader = async () => {
    while (running) {
      const started = Date.now();
      const response = await call(stack, 'GET', '/v1/ledger/records?pageSize=10&order=desc', {
        key: firm.key,
      });
      answers.push({ kind: 'read', status: response.status, ms: runMs(response, started), response });
    }
  };
  const load = [...Array.from({ length: WRITERS }, writer), ...Array.from({ length: READERS }, reader)];
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    await fault();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  } finally {
    running = false;
    await Promise.allSettled(load);
    await clearFaults(stack);
  }
  await Promise.all(load);
  return answers;
}

/** The request's own running time (its instance says), else its whole time. */
function runMs(response: StackResponse, started: number): number {
  const header = response.headers.get('x-local-run-ms');
  return header === null ? Date.now() - started : Number(header);
}

/** Every answer 2xx or 503 with Retry-After in the envelope (naming no internals), within the bound. */
export function expectBoundedAnswers(
  answers: Answer[],
  allowUnavailable: { writes: boolean; reads: boolean },
): void {
  expect(answers.length).toBeGreaterThan(0);
  const late = answers.filter((a) => a.ms >= BOUND_MS).map(({ kind, status, ms }) => ({ kind, status, ms }));
  expect(late).toEqual([]);
  const allowed = (answer: Answer) => [
    answer.kind === 'write' ? 201 : 200,
    ...(allowUnavailable[`${answer.kind}s`] ? [503] : []),
  ];
  const unexpected = answers
    .filter((answer) => !allowed(answer).includes(answer.status))
    .map(({ kind, status, response }) => ({ kind, status, body: response.body }));
  expect(unexpected).toEqual([]);
  for (const answer of answers) {
    if (answer.status === 503) {
      expect(Number(answer.response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.response.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(answer.response.body.error.message).not.toMatch(/dynamo|kms|s3|sqs|ECONN|timeout/i);
    }
  }
}

/**
 * Nothing acknowledged lost, the chain gapless and sound, and no write answered 503 written twice: retried with its
 * Idempotency-Key it runs (201), is still locked by a claim the fault left (409 with Retry-After), or, in the one
 * window docs/operations.md ("Commit ⇒ record") names (the table gone for longer than the asker's budget while a
 * holder had its intent, which a DynamoDB restart on a loaded machine can be), is told which record was committed
 * (409 without Retry-After), a record that is in the chain.
 */
export async function expectNothingLost(
  stack: RunningStack,
  firm: { key: string },
  answers: Answer[],
): Promise<void> {
  const chain = await chainOf(stack, firm.key);
  expectSoundChain(chain);
  const logged = new Set(chain.map((record) => record.documentMetadata.incidentId));
  for (const answer of answers.filter((a) => a.incidentId)) expect(logged).toContain(answer.incidentId);
  // Retried as clients would, several at a time (one per instance): a long fault leaves hundreds of them.
  const refused = answers.filter((a) => a.kind === 'write' && a.status === 503);
  const namedCommitted: (string | undefined)[] = [];
  const retry = async () => {
    for (let answer = refused.pop(); answer; answer = refused.pop()) {
      const retried = await call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        body: answer.body,
        headers: { 'idempotency-key': answer.key! },
      });
      if (retried.status === 409 && retried.headers.get('retry-after') === null)
        namedCommitted.push(/ledger record (\S+) was committed/.exec(retried.body.error.message)?.[1]);
      else if (retried.status !== 409) expect(retried.status).toBe(201);
    }
  };
  await Promise.all(Array.from({ length: INSTANCES }, retry));
  if (namedCommitted.length === 0) return;
  const after = await chainOf(stack, firm.key);
  expectSoundChain(after);
  for (const id of namedCommitted) expect(after.map((record) => record.id)).toContain(id);
}

/** How many write-once copies of the firm's records the object store holds. */
export async function immutableCopies(stack: RunningStack, firmId: string): Promise<number> {
  const deps = createLocalDeps(stack);
  let copies = 0;
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    void key;
    copies += 1;
  }
  return copies;
}

/** The pid of the stack's DynamoDB Local now; 0 while a restart has not written it yet. */
export function dynamoPid(stack: RunningStack): number {
  try {
    return Number(readFileSync(join(stack.dataDir, 'dynamodb.pid'), 'utf8'));
  } catch {
    return 0;
  }
}

/** `/health` answers 200 "ok" (true), else undefined: a probe for `until`. */
export async function healthOk(stack: RunningStack): Promise<true | undefined> {
  const { status, body } = await call(stack, 'GET', '/health');
  return status === 200 && body.status === 'ok' ? true : undefined;
}
