import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { guardedLookup, postWebhook } from '../../../shared/services/webhook-http.js';

/** Runs the guarded lookup the way net.connect does (all: true since Node 20's family autoselection). */
function resolve(hostname: string, allowLoopback: boolean, all: boolean) {
  return new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
    guardedLookup({ allowLoopback })(hostname, { all }, (error, address) => done({ error, address })),
  );
}

describe('guardedLookup (checked on the addresses the socket connects to)', () => {
  it('refuses a host name whose answer is a forbidden address, whatever it resolved to before', async () => {
    // "localhost" stands in for a rebinding name: what counts is the address in the DNS answer now.
    const { error } = await resolve('localhost', false, true);
    expect(error?.code).toBe('EADDRNOTALLOWED');
    expect(error?.message).toMatch(/loopback/);
  });

  it('passes allowed answers through in both callback shapes', async () => {
    const all = await resolve('localhost', true, true);
    expect(all.error).toBeNull();
    expect(Array.isArray(all.address)).toBe(true);
    const one = await resolve('localhost', true, false);
    expect(one.error).toBeNull();
    expect(typeof one.address).toBe('string');
  });
});

describe('postWebhook', () => {
  let server: Server;
  let port: number;
  let hang = false;
  const received: { headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        if (hang) return; // never answers: the delivery timeout must end the attempt
        response.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
        response.end();
      });
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((closed) => server.close(closed));
  });

  const dev = { allowInsecureLoopback: true };

  it('posts the body with its headers and reports a redirect as a status, without following it', async () => {
    hang = false;
    const result = await postWebhook(
      `http://localhost:${port}/hook?q=1`,
      '{"a":1}',
      { 'X-Test': 'yes' },
      { timeoutMs: 2000, policy: dev },
    );
    expect(result.statusCode).toBe(302);
    expect(received.at(-1)).toMatchObject({ body: '{"a":1}', headers: { 'x-test': 'yes' } });
  });

  it('ends an attempt that gets no answer within the timeout', async () => {
    hang = true;
    await expect(
      postWebhook(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 300, policy: dev }),
    ).rejects.toThrow(/Timed out after 300 ms/);
  });

  it('refuses loopback and metadata targets in production before connecting', async () => {
    const count = received.length;
    const prod = { allowInsecureLoopback: false };
    await expect(
      postWebhook(`http://127.0.0.1:${port}/hook`, '{}', {}, { timeoutMs: 1000, policy: prod }),
    ).rejects.toThrow(/Refused/);
    await expect(
      postWebhook(`https://localhost:${port}/hook`, '{}', {}, { timeoutMs: 1000, policy: prod }),
    ).rejects.toThrow(/Refused/);
    await expect(
      postWebhook('http://169.254.169.254/latest/meta-data/', '{}', {}, { timeoutMs: 1000, policy: dev }),
    ).rejects.toThrow(/metadata/);
    expect(received).toHaveLength(count);
  });
});
