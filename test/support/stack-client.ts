/**
 * HTTP helpers for tests that start their own embedded stack (startStack), e.g. with LOCAL_INSTANCES: the
 * helpers of test/integration/helpers.ts talk to the shared test stack only.
 */
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { checkRecord } from '../../shared/ledger/verify.js';
import { assertDescribed, descriptionOf } from './contract.js';
import { createFirmAsOperator } from './operator.js';

export interface StackResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
  /** The body's bytes as received (binary answers: log tiles). */
  bytes: Uint8Array;
}

export interface CallOptions {
  key?: string;
  token?: string;
  body?: unknown;
  /** A body string sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

/**
 * An HTTP call to a running stack, the one every test helper makes. A body is sent as application/json unless
 * `headers` names another Content-Type (fetch would label a string text/plain, which a JSON operation refuses);
 * the answer's body is parsed as JSON when it is JSON, else kept as text. Every answer is checked against the
 * stack's /openapi.json (test/support/contract.ts): one the description does not allow fails the calling test.
 */
export async function call<T = any>(
  stack: { baseUrl: string },
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<StackResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-service-key'] = options.key;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const body = options.body !== undefined ? JSON.stringify(options.body) : options.raw;
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  void descriptionOf(stack.baseUrl); // on the wire before this request (test/support/contract.ts)
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body });
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text.
  }
  await assertDescribed(stack.baseUrl, {
    method,
    path,
    status: response.status,
    headers: response.headers,
    text,
    body: parsed,
    bytes,
  });
  return { status: response.status, body: parsed as T, headers: response.headers, bytes };
}

/**
 * Onboards a firm as an operator would with `ledgerctl firm create` (in this process: ./operator.ts); answers its
 * id and first API key.
 */
export async function onboardFirm(stack: {
  dataDir: string;
  dynamoEndpoint: string;
  baseUrl: string;
}): Promise<{ firmId: string; key: string }> {
  const tag = Math.random().toString(36).slice(2, 8);
  const created = await createFirmAsOperator(stack, {
    name: `Firm ${tag}`,
    frnNumber: '123456',
    plan: 'BOTH',
    adminName: 'Ada Admin',
    adminEmail: `admin-${tag}@firm.test`,
  });
  return { firmId: created.firm.id, key: created.apiKey };
}

/** The firm's whole chain in chain order, every page of GET /v1/ledger/records?order=asc. */
export async function chainOf(stack: { baseUrl: string }, key: string): Promise<LedgerRecord[]> {
  const records: LedgerRecord[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await call<{ data: LedgerRecord[]; pagination: { totalPages: number } }>(
      stack,
      'GET',
      `/v1/ledger/records?order=asc&pageSize=100&page=${page}`,
      { key },
    );
    if (status !== 200) throw new Error(`GET /v1/ledger/records answered ${status}`);
    records.push(...body.data);
    if (page >= body.pagination.totalPages) return records;
  }
}

/** Starts a verification and waits until its run, continued by the integrity-verify worker if need be, completes. */
export async function verifyChain(stack: { baseUrl: string }, key: string): Promise<any> {
  const started = await call(stack, 'POST', '/v1/ledger/integrity/verify', { key });
  if (started.status !== 200) throw new Error(`verify answered ${started.status}`);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { body } = await call(
      stack,
      'GET',
      `/v1/ledger/integrity/verifications/${started.body.verification.id}`,
      {
        key,
      },
    );
    if (body.verification.status === 'COMPLETED') return { started: started.body, done: body };
    if (Date.now() > deadline) throw new Error(`Verification did not complete: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A POST /v1/incidents body: one INCIDENT_LOGGED append with its incident item. */
export function incidentBody(n: number, severity = 'LOW') {
  return {
    title: `Incident ${n}`,
    description: 'A suitability letter went out with a stale risk profile.',
    severity,
    category: 'OPERATIONAL',
  };
}

/** Every record linked, hashed and signed, and the sequence numbers exactly 1..n. */
export function expectSoundChain(records: LedgerRecord[]): void {
  expect(records.map((r) => r.sequenceNumber)).toEqual(records.map((_, i) => i + 1));
  let previous: string | null = null;
  for (const record of records) {
    expect(checkRecord(record, previous)).toEqual([]);
    previous = record.chainHash;
  }
}
