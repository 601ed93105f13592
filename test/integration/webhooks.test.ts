import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '../../shared/ids.js';
import { handleWebhookMessage } from '../../shared/services/webhook-delivery.js';
import { createDelivery } from '../../shared/store/webhook-store.js';
import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

/** What the receiver saw of one request. */
interface Received {
  n: number;
  headers: IncomingHttpHeaders;
  raw: string;
  signatureValid: boolean;
  status: number;
}

/**
 * A real webhook receiver, written the way a customer would: it checks X-Service-Signature with its own
 * HMAC-SHA256 (node:crypto, not the service's code) in constant time, answers what `respond` says, and
 * processes each sequenceNumber once.
 */
class Receiver {
  secret = '';
  readonly requests: Received[] = [];
  readonly processed: number[] = [];
  duplicates = 0;
  private readonly server: Server;
  private waiters: (() => void)[] = [];

  constructor(private readonly respond: (n: number) => number | Promise<number> = () => 200) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => void this.handle(request.headers, Buffer.concat(chunks), response));
    });
  }

  private async handle(headers: IncomingHttpHeaders, body: Buffer, response: ServerResponse) {
    const n = this.requests.length + 1;
    const expected = Buffer.from(
      `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`,
      'utf8',
    );
    const given = Buffer.from(String(headers['x-service-signature'] ?? ''), 'utf8');
    const signatureValid = given.length === expected.length && timingSafeEqual(given, expected);
    const status = signatureValid ? await this.respond(n) : 401;
    if (status >= 200 && status < 300) {
      const { sequenceNumber } = JSON.parse(body.toString('utf8')) as { sequenceNumber: number };
      if (this.processed.includes(sequenceNumber)) this.duplicates += 1;
      else this.processed.push(sequenceNumber);
    }
    this.requests.push({ n, headers, raw: body.toString('utf8'), signatureValid, status });
    if (status === 0) return; // never answers
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end('ok');
    this.notify();
  }

  private notify() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  async start(): Promise<string> {
    await new Promise<void>((listening) => this.server.listen(0, '127.0.0.1', listening));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/ledger`;
  }

  /** Resolves once `condition` holds (checked after every request); fails the test if it never does. */
  async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`Receiver never saw: ${what}`);
      await new Promise<void>((wake) => {
        this.waiters.push(wake);
        setTimeout(wake, 250);
      });
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((closed) => this.server.close(closed));
  }
}

/** Polls an API condition (a worker's progress is not observable otherwise) with a generous bound. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`Never happened: ${what}; last ${JSON.stringify(value)}`);
    await new Promise((wait) => setTimeout(wait, 150));
  }
}

const receivers: Receiver[] = [];
async function receiver(respond?: (n: number) => number | Promise<number>) {
  const r = new Receiver(respond);
  receivers.push(r);
  return { receiver: r, url: await r.start() };
}
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

async function register(firm: TestFirm, url: string, events: string[], r?: Receiver) {
  const response = await api('POST', '/v1/firm/me/webhooks', { key: firm.key, body: { url, events } });
  expect(response.status).toBe(201);
  if (r) r.secret = response.body.secret;
  return response.body as { id: string; secret: string };
}

/** Each call flips enforceImpactAssessments, so each writes one FIRM_SETTINGS_UPDATED record. */
const settingsState = new Map<string, boolean>();
async function changeSettings(firm: TestFirm) {
  const next = !(settingsState.get(firm.firmId) ?? true);
  settingsState.set(firm.firmId, next);
  const response = await api('PATCH', '/v1/firm/me/settings', {
    key: firm.key,
    body: { enforceImpactAssessments: next },
  });
  expect(response.status).toBe(200);
  const records = await api('GET', '/v1/ledger/records?eventType=FIRM_SETTINGS_UPDATED&pageSize=1', {
    key: firm.key,
  });
  return records.body.data[0] as Record<string, any>;
}

const deliveries = (firm: TestFirm, webhookId: string, query = '') =>
  api('GET', `/v1/firm/me/webhooks/${webhookId}/deliveries${query}`, { key: firm.key });

describe('webhook registration', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('LEDGER');
  });

  it('creates an endpoint with a service-generated secret, listed with it', async () => {
    const created = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['firm-settings.updated', 'chain.repaired'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_/),
      firmId: firm.firmId,
      url: 'http://127.0.0.1:9/hook',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      events: ['firm-settings.updated', 'chain.repaired'],
      isActive: true,
      createdAt: expect.any(String),
      deactivatedAt: null,
    });
    const other = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'http://localhost:9/hook', events: ['job.submitted'] },
    });
    expect(other.body.secret).not.toBe(created.body.secret);
    const list = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([created.body, other.body]);
  });

  it('refuses event names that are not subscribable, naming each, and stores nothing', async () => {
    const before = (await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body.length;
    const response = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: {
        url: 'http://127.0.0.1:9/hook',
        events: ['job.submitted', 'CHAIN_VERIFIED', 'chain.verified', 'FIRM_SETTINGS_UPDATED'],
      },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    const details = response.body.error.details as { path: string; message: string }[];
    expect(details.map((d) => d.path)).toEqual(['body.events.1', 'body.events.2', 'body.events.3']);
    expect(details[0]!.message).toMatch(/"CHAIN_VERIFIED" is a ledger event type without a webhook name/);
    expect(details[1]!.message).toMatch(/"chain.verified" is not a webhook event/);
    expect(details[2]!.message).toMatch(/subscribe to its webhook name "firm-settings.updated"/);
    for (const events of [[], ['job.submitted', 'job.submitted'], 'job.submitted'])
      expect(
        (
          await api('POST', '/v1/firm/me/webhooks', {
            key: firm.key,
            body: { url: 'http://127.0.0.1:9/', events },
          })
        ).status,
      ).toBe(400);
    expect((await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body).toHaveLength(before);
  });

  it('refuses URLs that are not https or that point at private, link-local or metadata addresses', async () => {
    const refusals: [string, RegExp][] = [
      ['http://hooks.example.com/in', /https/],
      ['https://169.254.169.254/latest/meta-data/', /metadata/],
      ['https://10.0.0.8/in', /private/],
      ['https://[fd00:ec2::254]/in', /private/],
      ['https://[::ffff:192.168.1.1]/in', /private/],
      ['https://user:secret@127.0.0.1/in', /credentials/],
      ['not a url', /absolute URL/],
    ];
    for (const [url, why] of refusals) {
      const response = await api('POST', '/v1/firm/me/webhooks', {
        key: firm.key,
        body: { url, events: ['job.submitted'] },
      });
      expect(response.status).toBe(400);
      expect(response.body.error.details).toEqual([
        { path: 'body.url', message: expect.stringMatching(why) },
      ]);
    }
  });

  it('lets a FIRM_ADMIN user manage webhooks, and no other role see the secrets', async () => {
    const admin = await tokenFor(firm.firmId, firm.admin.email);
    const listed = await api('GET', '/v1/firm/me/webhooks', { token: admin });
    expect(listed.status).toBe(200);
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `reviewer-${Date.now()}@firm.test`);
    const token = await tokenFor(firm.firmId, reviewer.email);
    for (const [method, path, body] of [
      ['GET', '/v1/firm/me/webhooks', undefined],
      ['POST', '/v1/firm/me/webhooks', { url: 'http://127.0.0.1:9/', events: ['job.submitted'] }],
    ] as const) {
      const response = await api(method, path, { token, body });
      expect(response.status).toBe(403);
      expect(JSON.stringify(response.body)).not.toContain('whsec_');
    }
  });

  it('deactivates: 204, kept in the list with isActive false; repeated 204; unknown 404', async () => {
    const webhook = await register(firm, 'http://127.0.0.1:9/x', ['sla.breached']);
    expect((await api('DELETE', `/v1/firm/me/webhooks/${webhook.id}`, { key: firm.key })).status).toBe(204);
    const listed = (await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body.find(
      (w: { id: string }) => w.id === webhook.id,
    );
    expect(listed).toMatchObject({ isActive: false, deactivatedAt: expect.any(String) });
    expect((await api('DELETE', `/v1/firm/me/webhooks/${webhook.id}`, { key: firm.key })).status).toBe(204);
    const unknown = await api('DELETE', '/v1/firm/me/webhooks/wh_01J00000000000000000000000', {
      key: firm.key,
    });
    expect(unknown.status).toBe(404);
  });
});

describe('webhook delivery', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('delivers the signed flat envelope, retries non-2xx with backoff, and logs every attempt', async () => {
    const { receiver: r, url } = await receiver((n) => (n <= 2 ? 500 : 204));
    const webhook = await register(firm, url, ['firm-settings.updated'], r);
    const record = await changeSettings(firm);
    await r.until(() => r.processed.length === 1, 'the record accepted');

    expect(r.requests.map((q) => q.status)).toEqual([500, 500, 204]);
    expect(r.requests.every((q) => q.signatureValid)).toBe(true);
    // Every attempt carries the very same bytes.
    expect(new Set(r.requests.map((q) => q.raw)).size).toBe(1);
    const [first] = r.requests;
    expect(first!.headers['x-service-event']).toBe('firm-settings.updated');
    expect(first!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(first!.raw)).toEqual({
      id: record.id,
      firmId: firm.firmId,
      sequenceNumber: record.sequenceNumber,
      eventType: 'FIRM_SETTINGS_UPDATED',
      timestamp: record.timestamp,
      documentHash: '',
      chainHash: record.chainHash,
    });
    expect(Object.keys(JSON.parse(first!.raw))).toHaveLength(7);

    const log = await eventually(
      () => deliveries(firm, webhook.id),
      (response) => response.body.data[0]?.status === 'DELIVERED',
      'delivery logged as DELIVERED',
    );
    expect(log.body.pagination).toEqual({ page: 1, pageSize: 25, total: 1, totalPages: 1, nextCursor: null });
    const delivery = log.body.data[0];
    expect(delivery).toMatchObject({
      webhookId: webhook.id,
      recordId: record.id,
      sequenceNumber: record.sequenceNumber,
      event: 'firm-settings.updated',
      attempts: 3,
      lastStatusCode: 204,
      lastError: null,
      deliveredAt: expect.any(String),
      payload: JSON.parse(first!.raw),
    });
    expect(delivery.attemptLog.map((a: any) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 204, null],
    ]);
    expect(delivery.headers).toBeUndefined();
    expect(first!.headers['x-service-delivery']).toBe(delivery.id);

    // Redeliver: the same payload and signature again; the receiver recognises the duplicate.
    const redelivered = await api(
      'POST',
      `/v1/firm/me/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`,
      { key: firm.key },
    );
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ id: delivery.id, status: 'PENDING' });
    await r.until(() => r.duplicates === 1, 'the redelivery');
    expect(r.requests).toHaveLength(4);
    expect(r.requests[3]!.raw).toBe(first!.raw);
    expect(r.requests[3]!.headers['x-service-signature']).toBe(first!.headers['x-service-signature']);
    expect(r.processed).toEqual([record.sequenceNumber]);
    const after = await eventually(
      () => deliveries(firm, webhook.id),
      (response) => response.body.data[0]?.attempts === 4 && response.body.data[0]?.status === 'DELIVERED',
      'redelivery logged',
    );
    expect(after.body.data[0].attemptLog).toHaveLength(4);
  });

  it('creates no second delivery and sends nothing again when a delivered record is dispatched again', async () => {
    // A firm of its own: no other endpoint may have an attempt of its own in flight.
    const quiet = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const webhook = await register(quiet, url, ['firm-settings.updated'], r);
    const record = await changeSettings(quiet);
    await r.until(() => r.processed.includes(record.sequenceNumber), 'the record');
    await eventually(
      () => deliveries(quiet, webhook.id),
      (response) => response.body.data[0]?.status === 'DELIVERED',
      'delivered',
    );
    // What the outbox sweep does after a crash between dispatch and clearing the outbox entry: the worker
    // receives the same record message again (run here against the stack's tables, with a recording queue).
    const sent: unknown[] = [];
    const deps = {
      ...stackDeps(),
      queue: {
        send: async (_queue: string, message: unknown) => {
          sent.push(message);
        },
      },
    };
    await handleWebhookMessage(deps, {
      firmId: quiet.firmId,
      sequenceNumber: record.sequenceNumber,
      recordId: record.id,
      eventType: 'FIRM_SETTINGS_UPDATED',
    });
    expect(sent).toEqual([]);
    expect((await deliveries(quiet, webhook.id)).body.pagination.total).toBe(1);
    expect(r.requests).toHaveLength(1);
  });

  it('lets exactly one of two identical attempt messages deliver, and ignores a stale one', async () => {
    const { receiver: r, url } = await receiver();
    const webhook = await register(firm, url, ['sla.breached'], r);
    // A delivery seeded straight into the table (as the fan-out writes it), for a sequence number no record
    // has, so the stack's own worker never touches it.
    const deps = { ...stackDeps(), queue: { send: async () => undefined } };
    const body = JSON.stringify({ id: 'rec_seeded', firmId: firm.firmId, sequenceNumber: 999_999 });
    const delivery = {
      id: newId('webhookDelivery'),
      firmId: firm.firmId,
      webhookId: webhook.id,
      recordId: 'rec_seeded',
      sequenceNumber: 999_999,
      eventType: 'SLA_BREACHED' as const,
      event: 'sla.breached' as const,
      body,
      status: 'PENDING' as const,
      token: 'token-1',
      leaseUntil: null,
      attempts: 0,
      roundAttempts: 0,
      attemptLog: [],
      lastStatusCode: null,
      lastError: null,
      createdAt: new Date().toISOString(),
      lastAttemptAt: null,
      nextAttemptAt: new Date().toISOString(),
      deliveredAt: null,
    };
    expect(await createDelivery(deps, delivery)).toBe('created');
    const config = {
      policy: { allowInsecureLoopback: true },
      schedule: { maxAttempts: 2, baseDelaySeconds: 1, maxDelaySeconds: 1 },
      timeoutMs: 2000,
    };
    const message = {
      kind: 'webhook-attempt' as const,
      firmId: firm.firmId,
      webhookId: webhook.id,
      deliveryId: delivery.id,
    };
    await Promise.all([
      handleWebhookMessage(deps, { ...message, token: 'token-1' }, config),
      handleWebhookMessage(deps, { ...message, token: 'token-1' }, config),
    ]);
    await handleWebhookMessage(deps, { ...message, token: 'token-0' }, config);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]!.raw).toBe(body);
    expect(r.requests[0]!.signatureValid).toBe(true);
    const log = await deliveries(firm, webhook.id);
    expect(log.body.data[0]).toMatchObject({ id: delivery.id, status: 'DELIVERED', attempts: 1 });
  });

  it('retries an attempt that times out, and dead-letters (FAILED) once the attempts run out', async () => {
    // First request: no answer (the 2 s test timeout ends it); then 503 for ever.
    const { receiver: r, url } = await receiver((n) => (n === 1 ? 0 : 503));
    const webhook = await register(firm, url, ['firm-settings.updated'], r);
    await changeSettings(firm);
    const log = await eventually(
      () => deliveries(firm, webhook.id, '?status=FAILED'),
      (response) => response.body.pagination.total === 1,
      'delivery dead-lettered',
    );
    const failed = log.body.data[0];
    // WEBHOOK_MAX_ATTEMPTS is 4 in the integration stack.
    expect(failed.attempts).toBe(4);
    expect(failed.attemptLog[0]).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/Timed out/),
    });
    expect(failed.attemptLog.slice(1).map((a: any) => a.statusCode)).toEqual([503, 503, 503]);
    expect(failed).toMatchObject({ lastStatusCode: 503, lastError: 'HTTP 503', nextAttemptAt: null });
    expect(r.requests).toHaveLength(4);
    expect(r.processed).toEqual([]);
  });

  it('delivers only subscribed events, and nothing to a deactivated endpoint', async () => {
    const jobs = await receiver();
    const settings = await receiver();
    const deactivated = await receiver();
    const jobsHook = await register(firm, jobs.url, ['job.submitted'], jobs.receiver);
    await register(firm, settings.url, ['firm-settings.updated'], settings.receiver);
    const goneHook = await register(
      firm,
      deactivated.url,
      ['firm-settings.updated', 'job.submitted'],
      deactivated.receiver,
    );
    expect((await api('DELETE', `/v1/firm/me/webhooks/${goneHook.id}`, { key: firm.key })).status).toBe(204);

    const record = await changeSettings(firm);
    // The settings endpoint receiving it means the record's fan-out ran, with the endpoint list it read.
    await settings.receiver.until(
      () => settings.receiver.processed.includes(record.sequenceNumber),
      'the settings record',
    );
    expect(jobs.receiver.requests).toHaveLength(0);
    expect((await deliveries(firm, jobsHook.id)).body.pagination.total).toBe(0);

    // The job endpoint does receive its own event: a job submission, with the document's hash.
    const bytes = new Uint8Array(randomBytes(1_000));
    const presigned = await api('POST', '/v1/review/uploads', {
      key: firm.key,
      body: { filename: 'Suitability report.pdf' },
    });
    const put = await fetch(presigned.body.uploadUrl, {
      method: 'PUT',
      body: bytes,
      headers: presigned.body.uploadHeaders,
    });
    expect(put.status).toBe(200);
    const job = await api('POST', '/v1/review/jobs', {
      key: firm.key,
      body: {
        documentKey: presigned.body.documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLI-1',
        documentReference: 'DOC-1',
        factFindSummary: {},
      },
    });
    expect(job.status).toBe(201);
    await jobs.receiver.until(() => jobs.receiver.processed.length === 1, 'the job submission');
    const envelope = JSON.parse(jobs.receiver.requests[0]!.raw);
    expect(jobs.receiver.requests[0]!.headers['x-service-event']).toBe('job.submitted');
    expect(envelope).toMatchObject({
      eventType: 'DOCUMENT_SUBMITTED',
      documentHash: createHash('sha256').update(bytes).digest('hex'),
    });
    // The settings endpoint is not subscribed to job.submitted: it still has only the settings record.
    expect(settings.receiver.requests.map((q) => JSON.parse(q.raw).eventType)).toEqual([
      'FIRM_SETTINGS_UPDATED',
    ]);
    // The deactivated endpoint saw nothing at all, and has no deliveries.
    expect(deactivated.receiver.requests).toHaveLength(0);
    expect((await deliveries(firm, goneHook.id)).body.pagination.total).toBe(0);
  });

  it('cancels an attempt already queued when the endpoint is deactivated before it runs', async () => {
    let webhookId = '';
    // The first attempt fails; while answering it, the firm deactivates the endpoint, so the retry is
    // already queued when the deactivation lands.
    const { receiver: r, url } = await receiver(async (n) => {
      if (n === 1) {
        const gone = await api('DELETE', `/v1/firm/me/webhooks/${webhookId}`, { key: firm.key });
        expect(gone.status).toBe(204);
      }
      return 500;
    });
    const webhook = await register(firm, url, ['firm-settings.updated'], r);
    webhookId = webhook.id;
    await changeSettings(firm);
    const log = await eventually(
      () => deliveries(firm, webhook.id),
      (response) => response.body.data[0]?.status === 'CANCELLED',
      'the queued retry cancelled',
    );
    expect(log.body.data[0]).toMatchObject({ attempts: 1, lastError: expect.stringMatching(/deactivated/) });
    expect(r.requests).toHaveLength(1);
    const again = await api(
      'POST',
      `/v1/firm/me/webhooks/${webhook.id}/deliveries/${log.body.data[0].id}/redeliver`,
      { key: firm.key },
    );
    expect(again.status).toBe(409);
    expect(r.requests).toHaveLength(1);
  });

  it("answers 404 for another firm's endpoint, its deliveries, its redelivery and its secret rotation, and changes nothing", async () => {
    const other = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const webhook = await register(firm, url, ['firm-settings.updated'], r);
    const record = await changeSettings(firm);
    await r.until(() => r.processed.includes(record.sequenceNumber), 'the record');
    const delivery = (
      await eventually(
        () => deliveries(firm, webhook.id),
        (response) => response.body.data[0]?.status === 'DELIVERED',
        'delivered',
      )
    ).body.data[0];

    expect((await api('GET', '/v1/firm/me/webhooks', { key: other.key })).body).toEqual([]);
    const calls: [string, string][] = [
      ['GET', `/v1/firm/me/webhooks/${webhook.id}/deliveries`],
      ['POST', `/v1/firm/me/webhooks/${webhook.id}/deliveries/${delivery.id}/redeliver`],
      ['POST', `/v1/firm/me/webhooks/${webhook.id}/rotate-secret`],
      ['DELETE', `/v1/firm/me/webhooks/${webhook.id}`],
    ];
    for (const [method, path] of calls) {
      const response = await api(method, path, { key: other.key });
      expect(response.status).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(webhook.secret);
    }
    const mine = (await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body.find(
      (w: { id: string }) => w.id === webhook.id,
    );
    expect(mine.isActive).toBe(true);
    expect(mine.secret).toBe(webhook.secret);
    // Another firm's records never reach this firm's endpoints.
    const otherHook = await receiver();
    await register(other, otherHook.url, ['firm-settings.updated'], otherHook.receiver);
    const otherRecord = await changeSettings(other);
    await otherHook.receiver.until(
      () => otherHook.receiver.processed.length === 1,
      "the other firm's record",
    );
    expect(JSON.parse(otherHook.receiver.requests[0]!.raw).firmId).toBe(other.firmId);
    expect(otherRecord.firmId).toBe(other.firmId);
    expect(r.requests.every((q) => JSON.parse(q.raw).firmId === firm.firmId)).toBe(true);
  });
});
