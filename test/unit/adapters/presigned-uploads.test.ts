import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsObjectStore } from '../../../shared/adapters/local/fs-object-store.js';
import {
  presignedUploadHandler,
  presignLocalPut,
  UrlSigningSecret,
  verifyPut,
} from '../../../shared/adapters/local/presigned-uploads.js';
import { sanitiseFilename, uploadKey, uploadKeyFirm } from '../../../shared/domain/review/uploads.js';

const SECRET = Buffer.alloc(32, 7);
const BASE = 'http://localhost:3000';
const KEY = 'uploads/firm_01J0000000000000000000000/01J0000000000000000000000A/report.pdf';
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const OPTIONS = { contentType: 'application/pdf', expiresInSeconds: 900, maxBytes: 1024 };

const pathOf = (url: string) => url.slice(BASE.length);

describe('local presigned PUT URLs', () => {
  it('builds the documented URL and expiry', () => {
    const { url, expiresAt } = presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0);
    const parsed = new URL(url);
    expect(parsed.origin + parsed.pathname).toBe(`${BASE}/local-objects/uploads/${KEY}`);
    expect(parsed.searchParams.get('expires')).toBe(String(T0 / 1000 + 900));
    expect(parsed.searchParams.get('contentType')).toBe('application/pdf');
    expect(parsed.searchParams.get('maxBytes')).toBe('1024');
    expect(parsed.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(expiresAt).toBe(new Date(T0 + 900_000).toISOString());
  });

  it('signs HMAC-SHA256 over method, bucket, key, expiry, content type and size limit', () => {
    const { url } = presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0);
    const expected = createHmac('sha256', SECRET)
      .update(['PUT', 'uploads', KEY, T0 / 1000 + 900, 'application/pdf', 1024].join('\n'))
      .digest('hex');
    expect(new URL(url).searchParams.get('signature')).toBe(expected);
  });

  it('accepts a genuine URL with the signed Content-Type until expiry, inclusive, and advises If-None-Match', () => {
    const { url, headers } = presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0);
    expect(headers).toEqual({ 'Content-Type': 'application/pdf', 'If-None-Match': '*' });
    expect(verifyPut(SECRET, pathOf(url), 'application/pdf', T0)).toMatchObject({
      ok: true,
      grant: { bucket: 'uploads', key: KEY, contentType: 'application/pdf', maxBytes: 1024 },
    });
    expect(verifyPut(SECRET, pathOf(url), 'application/pdf', T0 + 900_000).ok).toBe(true);
  });

  it('refuses an expired URL', () => {
    const { url } = presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0);
    expect(verifyPut(SECRET, pathOf(url), 'application/pdf', T0 + 901_000)).toMatchObject({
      ok: false,
      status: 403,
      code: 'AccessDenied',
      message: 'Request has expired',
    });
  });

  it.each([
    ['a tampered signature', (u: URL) => u.searchParams.set('signature', 'a'.repeat(64))],
    ['a malformed signature', (u: URL) => u.searchParams.set('signature', 'xyz')],
    [
      'a later expiry',
      (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
    ],
    ['another content type', (u: URL) => u.searchParams.set('contentType', 'text/html')],
    ['a larger size limit', (u: URL) => u.searchParams.set('maxBytes', '999999999')],
    ['another key', (u: URL) => (u.pathname = u.pathname.replace('report.pdf', 'other.pdf'))],
  ])('refuses %s (signature mismatch)', (_label, tamper) => {
    const url = new URL(presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0).url);
    tamper(url);
    const contentType = url.searchParams.get('contentType')!;
    expect(verifyPut(SECRET, url.pathname + url.search, contentType, T0)).toMatchObject({
      ok: false,
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it('refuses a URL signed with another secret, and a missing or different Content-Type header', () => {
    const { url } = presignLocalPut(SECRET, BASE, 'uploads', KEY, OPTIONS, T0);
    expect(verifyPut(Buffer.alloc(32, 8), pathOf(url), 'application/pdf', T0).ok).toBe(false);
    expect(verifyPut(SECRET, pathOf(url), undefined, T0)).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(verifyPut(SECRET, pathOf(url), 'text/plain', T0)).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('refuses missing parameters and buckets other than uploads', () => {
    expect(verifyPut(SECRET, `/local-objects/uploads/${KEY}`, 'application/pdf', T0)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
    const { url } = presignLocalPut(SECRET, BASE, 'immutable', KEY, OPTIONS, T0);
    expect(verifyPut(SECRET, pathOf(url), 'application/pdf', T0)).toMatchObject({ status: 404 });
  });
});

describe('UrlSigningSecret', () => {
  it('creates a 32-byte secret once, mode 0600, and reuses it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gls-secret-')), 'keys', 'secret.hex');
    const first = await new UrlSigningSecret(file).get();
    const second = await new UrlSigningSecret(file).get();
    expect(first).toHaveLength(32);
    expect(second.equals(first)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toBe(first.toString('hex'));
  });
});

describe('presigned upload handler', () => {
  let server: Server;
  let base: string;
  let store: FsObjectStore;
  let now = T0;
  let SECRET_FILE = '';

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gls-presign-'));
    SECRET_FILE = join(dir, 'secret.hex');
    const secret = new UrlSigningSecret(SECRET_FILE);
    const handle = presignedUploadHandler({
      secret,
      sink: new FsObjectStore(join(dir, 'objects')),
      now: () => now,
    });
    server = createServer((request, response) => {
      const readBody = (max: number) =>
        new Promise<Buffer | null>((resolve) => {
          const chunks: Buffer[] = [];
          let size = 0;
          request.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= max) chunks.push(chunk);
          });
          request.on('end', () => resolve(size > max ? null : Buffer.concat(chunks)));
        });
      void handle(request, response, readBody).then((handled) => {
        if (!handled) response.writeHead(404).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    store = new FsObjectStore(join(dir, 'objects'), { baseUrl: base, secret, now: () => now });
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));

  const put = (url: string, body: Uint8Array | string, contentType = 'application/pdf') =>
    fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType, 'if-none-match': '*' } });

  it('stores the bytes once, then refuses the same URL', async () => {
    now = T0;
    const key = uploadKey('firm_a', '01J0000000000000000000000B', 'a.pdf');
    const { url } = await store.presignPut('uploads', key, OPTIONS);
    const first = await put(url, 'hello');
    expect(first.status).toBe(200);
    expect(Buffer.from((await store.get('uploads', key))!.body).toString()).toBe('hello');
    expect((await store.get('uploads', key))!.contentType).toBe('application/pdf');
    const second = await put(url, 'other');
    expect(second.status).toBe(412);
    expect(await second.text()).toContain('<Code>PreconditionFailed</Code>');
    expect(Buffer.from((await store.get('uploads', key))!.body).toString()).toBe('hello');
  });

  it('answers 413 over the size limit and 403 once expired (by the clock)', async () => {
    now = T0;
    const key = uploadKey('firm_a', '01J0000000000000000000000C', 'b.pdf');
    const { url } = await store.presignPut('uploads', key, OPTIONS);
    expect((await put(url, new Uint8Array(1025))).status).toBe(413);
    expect(await store.get('uploads', key)).toBeNull();
    now = T0 + 901_000;
    const expired = await put(url, new Uint8Array(1024));
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
    now = T0 + 900_000;
    expect((await put(url, new Uint8Array(1024))).status).toBe(200);
  });

  it('refuses methods other than GET and PUT, and never reads uploads through a PUT URL', async () => {
    now = T0;
    const key = uploadKey('firm_a', '01J0000000000000000000000D', 'c.pdf');
    const { url } = await store.presignPut('uploads', key, OPTIONS);
    expect((await put(url, 'secret')).status).toBe(200);
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(405);
    const read = await fetch(url);
    expect(read.status).toBe(404);
    expect(await read.text()).toContain('<Code>NoSuchBucket</Code>');
  });

  it('serves a presigned GET of a certificate until expiry, and refuses a tampered or expired one', async () => {
    now = T0;
    const key = 'certificates/firm_a/cert_01J0000000000000000000000E.pdf';
    await store.put('certificates', key, new TextEncoder().encode('%PDF-1.7 test'), 'application/pdf');
    const { url, expiresAt } = await store.presignGet('certificates', key, { expiresInSeconds: 300 });
    expect(expiresAt).toBe(new Date(T0 + 300_000).toISOString());
    const expected = createHmac('sha256', await new UrlSigningSecret(SECRET_FILE).get())
      .update(['GET', 'certificates', key, T0 / 1000 + 300].join('\n'))
      .digest('hex');
    expect(new URL(url).searchParams.get('signature')).toBe(expected);

    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/pdf');
    expect(await ok.text()).toBe('%PDF-1.7 test');

    const otherKey = url.replace('cert_01J0000000000000000000000E', 'cert_01J0000000000000000000000F');
    expect((await fetch(otherKey)).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set('expires', String(T0 / 1000 + 9999));
    expect((await fetch(later)).status).toBe(403);
    // A GET grant is not a PUT grant (and nothing may be PUT into the certificates bucket).
    expect((await put(url, 'overwrite')).status).toBe(404);
    expect(Buffer.from((await store.get('certificates', key))!.body).toString()).toBe('%PDF-1.7 test');

    now = T0 + 301_000;
    const expired = await fetch(url);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
  });

  it('answers 404 NoSuchKey for a genuine URL of a missing object', async () => {
    now = T0;
    const { url } = await store.presignGet('certificates', 'certificates/firm_a/none.pdf', {
      expiresInSeconds: 60,
    });
    const response = await fetch(url);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain('<Code>NoSuchKey</Code>');
  });
});

describe('upload keys', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['Suitability Report (final) v2.docx', 'Suitability_Report_final_v2.docx'],
    ['..hidden', 'hidden'],
    ['café.pdf', 'caf_.pdf'],
    ['***', 'document'],
    ['..', 'document'],
  ])('sanitises %j to %j', (input, output) => expect(sanitiseFilename(input)).toBe(output));

  it('namespaces the key under the firm and recognises it', () => {
    const key = uploadKey('firm_x', '01J0000000000000000000000E', 'a b.pdf');
    expect(key).toBe('uploads/firm_x/01J0000000000000000000000E/a_b.pdf');
    expect(uploadKeyFirm(key)).toBe('firm_x');
    expect(uploadKeyFirm('uploads/firm_x/../a.pdf')).toBeNull();
  });
});
