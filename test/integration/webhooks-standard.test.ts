import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { putWebhook } from '../../shared/store/webhook-store.js';
import { newId } from '../../shared/ids.js';
import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

/** One request as the receiver got it: the headers and the raw body bytes (as text). */
interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
}

/** A plain receiver that answers what `respond` says and keeps every request for the test to verify. */
class Receiver {
  readonly requests: Received[] = [];
  private readonly server: Server;

  constructor(private readonly respond: (n: number) => number = () => 204) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests.push({ headers: request.headers, raw: Buffer.concat(chunks).toString('utf8') });
        response.writeHead(this.respond(this.requests.length), { 'content-type': 'text/plain' });
        response.end('ok');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((listening) => this.server.listen(0, '127.0.0.1', listening));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async until(count: number): Promise<void> {
    const deadline = Date.now() + 60_000;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`Receiver saw ${this.requests.length} of ${count} requests`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((closed) => this.server.close(closed));
  }
}

const receivers: Receiver[] = [];
async function receiver(respond?: (n: number) => number) {
  const r = new Receiver(respond);
  receivers.push(r);
  return { receiver: r, url: await r.start() };
}
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

/** The receiver side of Standard Webhooks, by the reference library: the parsed body, or it throws. */
function verifyStandard(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.raw, received.headers as Record<string, string>);
}

/** The receiver side of X-Service-Signature, by hand as the spec describes it. */
function serviceSignatureValid(secret: string, received: Received): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(received.raw).digest('hex')}`);
  const given = Buffer.from(String(received.headers['x-service-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function register(firm: TestFirm, url: string): Promise<{ id: string; secret: string }> {
  const response = await api('POST', '/v1/firm/me/webhooks', {
    key: firm.key,
    body: { url, events: ['firm-settings.updated'] },
  });
  expect(response.status).toBe(201);
  return response.body;
}

/** Each call flips a setting: one FIRM_SETTINGS_UPDATED record, so one delivery per endpoint. */
const flipped = new Map<string, boolean>();
async function changeSettings(firm: TestFirm): Promise<void> {
  const next = !(flipped.get(firm.firmId) ?? true);
  flipped.set(firm.firmId, next);
  const response = await api('PATCH', '/v1/firm/me/settings', {
    key: firm.key,
    body: { enforceImpactAssessments: next },
  });
  expect(response.status).toBe(200);
}

const rotate = (firm: TestFirm, webhookId: string, body?: unknown) =>
  api('POST', `/v1/firm/me/webhooks/${webhookId}/rotate-secret`, { key: firm.key, body });

describe('Standard Webhooks headers on every delivery', () => {
  it('verifies with the standardwebhooks library and with X-Service-Signature; retries and redelivery keep webhook-id', async () => {
    const firm = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver((n) => (n === 1 ? 500 : 204));
    const webhook = await register(firm, url);
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await changeSettings(firm);
    await r.until(2);

    for (const request of r.requests) {
      expect(verifyStandard(webhook.secret, request)).toEqual(JSON.parse(request.raw));
      expect(serviceSignatureValid(webhook.secret, request)).toBe(true);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    }
    const [first, retry] = r.requests;
    expect(first!.headers['webhook-id']).toMatch(/^whd_/);
    expect(first!.headers['webhook-id']).toBe(first!.headers['x-service-delivery']);
    expect(retry!.headers['webhook-id']).toBe(first!.headers['webhook-id']);

    // Redelivery once the delivery is done: the same webhook-id, so the receiver can drop it as a duplicate.
    const deliveryId = String(first!.headers['webhook-id']);
    const deadline = Date.now() + 60_000;
    let redelivered = await api(
      'POST',
      `/v1/firm/me/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`,
      {
        key: firm.key,
      },
    );
    while (redelivered.status === 409 && Date.now() < deadline) {
      // The second attempt's result may not be recorded yet.
      await new Promise((wait) => setTimeout(wait, 150));
      redelivered = await api(
        'POST',
        `/v1/firm/me/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`,
        {
          key: firm.key,
        },
      );
    }
    expect(redelivered.status).toBe(202);
    await r.until(3);
    const again = r.requests[2]!;
    expect(again.headers['webhook-id']).toBe(deliveryId);
    expect(again.raw).toBe(first!.raw);
    expect(verifyStandard(webhook.secret, again)).toEqual(JSON.parse(first!.raw));
    expect(serviceSignatureValid(webhook.secret, again)).toBe(true);
  });

  it('signs an endpoint whose secret predates the Standard Webhooks form: X-Service-Signature unchanged', async () => {
    const firm = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const key = Buffer.from('fb'.repeat(32), 'hex');
    const legacy = `whsec_${key.toString('base64url')}`; // the earlier format: base64url, no padding
    const id = newId('webhook');
    await putWebhook(stackDeps(), {
      id,
      firmId: firm.firmId,
      url,
      secret: legacy,
      events: ['firm-settings.updated'],
      isActive: true,
      createdAt: new Date().toISOString(),
      deactivatedAt: null,
    });
    const listed = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(listed.body.find((w: { id: string }) => w.id === id).secret).toBe(legacy);
    await changeSettings(firm);
    await r.until(1);
    const [request] = r.requests;
    expect(serviceSignatureValid(legacy, request!)).toBe(true);
    // The library refuses the legacy string; the same key re-encoded as standard base64 verifies (docs/webhooks.md).
    expect(() => verifyStandard(legacy, request!)).toThrow();
    expect(verifyStandard(`whsec_${key.toString('base64')}`, request!)).toEqual(JSON.parse(request!.raw));
    // Rotating gives it a secret the library takes as it is.
    const rotated = await rotate(firm, id, { overlapSeconds: 0 });
    expect(rotated.status).toBe(200);
    expect(() => new Webhook(rotated.body.secret)).not.toThrow();
  });
});

describe('POST /v1/firm/me/webhooks/{id}/rotate-secret', () => {
  it('returns the endpoint with a new secret; during the overlap both secrets verify, X-Service-Signature uses the new one', async () => {
    const firm = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const webhook = await register(firm, url);
    const rotated = await rotate(firm, webhook.id, { overlapSeconds: 604_800 });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({
      id: webhook.id,
      firmId: firm.firmId,
      url,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      events: ['firm-settings.updated'],
      isActive: true,
      createdAt: expect.any(String),
      deactivatedAt: null,
    });
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(webhook.secret);
    const listed = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(listed.body).toEqual([rotated.body]);

    await changeSettings(firm);
    await r.until(1);
    const [request] = r.requests;
    const signatures = String(request!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s))).toBe(true);
    expect(verifyStandard(fresh, request!)).toEqual(JSON.parse(request!.raw));
    expect(verifyStandard(webhook.secret, request!)).toEqual(JSON.parse(request!.raw));
    // The new secret signs first.
    expect(
      verifyStandard(fresh, {
        ...request!,
        headers: { ...request!.headers, 'webhook-signature': signatures[0] },
      }),
    ).toEqual(JSON.parse(request!.raw));
    expect(serviceSignatureValid(fresh, request!)).toBe(true);
    expect(serviceSignatureValid(webhook.secret, request!)).toBe(false);
  });

  it('with overlapSeconds 0 only the new secret signs; without a body the default overlap applies', async () => {
    const firm = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const webhook = await register(firm, url);
    const rotated = await rotate(firm, webhook.id, { overlapSeconds: 0 });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.secret as string;
    await changeSettings(firm);
    await r.until(1);
    expect(String(r.requests[0]!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyStandard(fresh, r.requests[0]!)).toEqual(JSON.parse(r.requests[0]!.raw));
    expect(() => verifyStandard(webhook.secret, r.requests[0]!)).toThrow(/No matching signature/);
    expect(serviceSignatureValid(webhook.secret, r.requests[0]!)).toBe(false);

    // No body at all: the default overlap (24 h), so the secret just replaced still verifies.
    const third = await api('POST', `/v1/firm/me/webhooks/${webhook.id}/rotate-secret`, { key: firm.key });
    expect(third.status).toBe(200);
    await changeSettings(firm);
    await r.until(2);
    expect(String(r.requests[1]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyStandard(third.body.secret, r.requests[1]!)).toEqual(JSON.parse(r.requests[1]!.raw));
    expect(verifyStandard(fresh, r.requests[1]!)).toEqual(JSON.parse(r.requests[1]!.raw));
    // The secret replaced by the earlier rotation (no overlap) is gone for good.
    expect(() => verifyStandard(webhook.secret, r.requests[1]!)).toThrow(/No matching signature/);
  });

  it('loses no rotation when two run at once: the later keeps the earlier one as its previous secret', async () => {
    const firm = await createFirm('LEDGER');
    const { receiver: r, url } = await receiver();
    const webhook = await register(firm, url);
    const both = await Promise.all([rotate(firm, webhook.id, {}), rotate(firm, webhook.id, {})]);
    expect(both.map((response) => response.status)).toEqual([200, 200]);
    const secrets = both.map((response) => response.body.secret as string);
    expect(new Set([webhook.secret, ...secrets]).size).toBe(3);
    const current = (await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body[0].secret as string;
    expect(secrets).toContain(current);
    await changeSettings(firm);
    await r.until(1);
    // Each returned secret verifies: one is current, the other the previous one (rotations were serialised).
    for (const secret of secrets)
      expect(verifyStandard(secret, r.requests[0]!)).toEqual(JSON.parse(r.requests[0]!.raw));
    expect(() => verifyStandard(webhook.secret, r.requests[0]!)).toThrow(/No matching signature/);
  });

  it('answers 404 for an unknown or deactivated endpoint, 400 for a bad overlap, 403 for a non-admin', async () => {
    const firm = await createFirm('LEDGER');
    const webhook = await register(firm, 'http://127.0.0.1:9/never');
    const unknown = await rotate(firm, 'wh_01J00000000000000000000000', {});
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');

    for (const overlapSeconds of [-1, 604_801, 1.5, '60'])
      expect((await rotate(firm, webhook.id, { overlapSeconds })).status).toBe(400);
    expect((await rotate(firm, webhook.id, { overlap: 60 })).status).toBe(400);

    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `reviewer-${Date.now()}@firm.test`);
    const forbidden = await api('POST', `/v1/firm/me/webhooks/${webhook.id}/rotate-secret`, {
      token: await tokenFor(firm.firmId, reviewer.email),
      body: {},
    });
    expect(forbidden.status).toBe(403);
    expect(JSON.stringify(forbidden.body)).not.toContain('whsec_');
    // Nothing of the refused calls changed the secret.
    const listed = await api('GET', '/v1/firm/me/webhooks', { key: firm.key });
    expect(listed.body[0].secret).toBe(webhook.secret);

    expect((await api('DELETE', `/v1/firm/me/webhooks/${webhook.id}`, { key: firm.key })).status).toBe(204);
    const inactive = await rotate(firm, webhook.id, {});
    expect(inactive.status).toBe(404);
    expect((await api('GET', '/v1/firm/me/webhooks', { key: firm.key })).body[0].secret).toBe(webhook.secret);
  });
});
