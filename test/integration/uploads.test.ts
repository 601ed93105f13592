import { createHash, randomBytes } from 'node:crypto';
import { MAX_UPLOAD_BYTES } from '../../shared/domain/review/uploads.js';
import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

interface Upload {
  uploadUrl: string;
  documentKey: string;
  expiresAt: string;
  maxBytes: number;
  contentType: string;
  uploadHeaders: Record<string, string>;
}

const put = (url: string, body: Uint8Array | string, contentType = 'application/pdf') =>
  fetch(url, { method: 'PUT', body, headers: { 'content-type': contentType, 'if-none-match': '*' } });

describe('POST /v1/review/uploads', () => {
  let firm: TestFirm;
  const requestUpload = async (body: unknown = { filename: 'Suitability report.pdf' }) => {
    const response = await api<Upload>('POST', '/v1/review/uploads', { key: firm.key, body });
    expect(response.status).toBe(200);
    return response.body;
  };
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it('presigns a firm-scoped PUT; the bytes land in the uploads bucket intact', async () => {
    const started = Date.now();
    const upload = await requestUpload();
    expect(Object.keys(upload).sort()).toEqual([
      'contentType',
      'documentKey',
      'expiresAt',
      'maxBytes',
      'uploadHeaders',
      'uploadUrl',
    ]);
    expect(upload.uploadHeaders).toEqual({ 'Content-Type': 'application/pdf', 'If-None-Match': '*' });
    expect(upload.documentKey).toMatch(
      new RegExp(`^uploads/${firm.firmId}/[0-9A-HJKMNP-TV-Z]{26}/Suitability_report\\.pdf$`),
    );
    expect(upload.contentType).toBe('application/pdf');
    expect(upload.maxBytes).toBe(MAX_UPLOAD_BYTES);
    expect(upload.expiresAt).toMatch(ISO);
    const ttl = Date.parse(upload.expiresAt) - started;
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 5_000);

    const bytes = new Uint8Array(randomBytes(300_000));
    const response = await put(upload.uploadUrl, bytes);
    expect(response.status).toBe(200);
    const stored = await stackDeps().objects.get('uploads', upload.documentKey);
    expect(stored).not.toBeNull();
    expect(sha256(stored!.body)).toBe(sha256(bytes));
    expect(stored!.contentType).toBe('application/pdf');
  });

  it('refuses a second PUT to the same URL with 412, as S3 does with If-None-Match: *, and keeps the first bytes', async () => {
    const upload = await requestUpload();
    const first = await fetch(upload.uploadUrl, {
      method: 'PUT',
      body: 'first',
      headers: upload.uploadHeaders,
    });
    expect(first.status).toBe(200);
    const second = await put(upload.uploadUrl, 'second');
    expect(second.status).toBe(412);
    expect(await second.text()).toContain('<Code>PreconditionFailed</Code>');
    const stored = await stackDeps().objects.get('uploads', upload.documentKey);
    expect(Buffer.from(stored!.body).toString()).toBe('first');
  });

  it("accepts the spec's PUT with only Content-Type, and still refuses a second PUT to the URL", async () => {
    const upload = await requestUpload();
    const plain = (body: string) =>
      fetch(upload.uploadUrl, { method: 'PUT', body, headers: { 'content-type': 'application/pdf' } });
    expect((await plain('first')).status).toBe(200);
    const second = await plain('second');
    expect(second.status).toBe(412);
    expect(await second.text()).toContain('<Code>PreconditionFailed</Code>');
    const stored = await stackDeps().objects.get('uploads', upload.documentKey);
    expect(Buffer.from(stored!.body).toString()).toBe('first');
  });

  it('refuses a PUT with another Content-Type', async () => {
    const upload = await requestUpload();
    const response = await put(upload.uploadUrl, 'x', 'text/plain');
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('application/xml');
    expect(await response.text()).toContain('SignatureDoesNotMatch');
    expect(await stackDeps().objects.get('uploads', upload.documentKey)).toBeNull();
  });

  it('refuses a tampered signature and a pushed-back expiry', async () => {
    const upload = await requestUpload();
    const tampered = new URL(upload.uploadUrl);
    const signature = tampered.searchParams.get('signature')!;
    tampered.searchParams.set('signature', (signature[0] === 'a' ? 'b' : 'a') + signature.slice(1));
    expect((await put(tampered.href, 'x')).status).toBe(403);

    // An expired URL cannot be revived: changing `expires` breaks the signature.
    const extended = new URL(upload.uploadUrl);
    extended.searchParams.set('expires', String(Math.floor(Date.now() / 1000) + 86_400));
    expect((await put(extended.href, 'x')).status).toBe(403);
    const expired = new URL(upload.uploadUrl);
    expired.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 60));
    expect((await put(expired.href, 'x')).status).toBe(403);

    expect(await stackDeps().objects.get('uploads', upload.documentKey)).toBeNull();
    // The genuine URL is still unused.
    expect((await put(upload.uploadUrl, 'x')).status).toBe(200);
  });

  it('answers 413 for a body over the limit and stores nothing', async () => {
    const upload = await requestUpload();
    const response = await put(upload.uploadUrl, new Uint8Array(MAX_UPLOAD_BYTES + 1));
    expect(response.status).toBe(413);
    expect(await response.text()).toContain('EntityTooLarge');
    expect(await stackDeps().objects.get('uploads', upload.documentKey)).toBeNull();
  });

  it('accepts a document at exactly the limit', async () => {
    const upload = await requestUpload({ filename: 'big.txt', contentType: 'text/plain' });
    expect(upload.contentType).toBe('text/plain');
    expect((await put(upload.uploadUrl, new Uint8Array(MAX_UPLOAD_BYTES), 'text/plain')).status).toBe(200);
  });

  it('is served under the /v1/principal alias too, for a signed-in user', async () => {
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `rev-${process.pid}-${Date.now()}@firm.test`);
    const token = await tokenFor(firm.firmId, reviewer.email);
    const response = await api<Upload>('POST', '/v1/principal/uploads', {
      token,
      body: {
        filename: 'advice.docx',
        contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.documentKey).toMatch(new RegExp(`^uploads/${firm.firmId}/.+/advice\\.docx$`));
  });

  it('refuses firms whose plan has no review services (403 FORBIDDEN)', async () => {
    const ledgerOnly = await createFirm('LEDGER');
    const response = await api('POST', '/v1/review/uploads', {
      key: ledgerOnly.key,
      body: { filename: 'a.pdf' },
    });
    expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const principalOnly = await createFirm('PRINCIPAL');
    const allowed = await api('POST', '/v1/review/uploads', {
      key: principalOnly.key,
      body: { filename: 'a.pdf' },
    });
    expect(allowed.status).toBe(200);
  });

  it('requires a credential (401)', async () => {
    const response = await api('POST', '/v1/review/uploads', { body: { filename: 'a.pdf' } });
    expect([response.status, response.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it.each([
    [{}, 'body.filename'],
    [{ filename: '' }, 'body.filename'],
    [{ filename: 'x'.repeat(201) }, 'body.filename'],
    [{ filename: '../etc/passwd' }, 'body.filename'],
    [{ filename: 'a\\b.pdf' }, 'body.filename'],
    [{ filename: 'a\nb.pdf' }, 'body.filename'],
    [{ filename: 'a.pdf', contentType: 'text/html' }, 'body.contentType'],
    [{ filename: 'a.pdf', extra: true }, ''],
  ])('refuses %j (400 VALIDATION_ERROR)', async (body, path) => {
    const response = await api('POST', '/v1/review/uploads', { key: firm.key, body });
    expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    if (path) expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});

describe('POST /v1/review/jobs: the upload’s size is checked before it is read', () => {
  it('answers 413 PAYLOAD_TOO_LARGE for an object over the limit (as S3 would hold one) and writes nothing', async () => {
    const firm = await createFirm('BOTH');
    const upload = await api<Upload>('POST', '/v1/review/uploads', {
      key: firm.key,
      body: { filename: 'huge.pdf' },
    });
    // S3 accepts any size on a presigned PUT: stand in for that by writing the object directly.
    await stackDeps().objects.put(
      'uploads',
      upload.body.documentKey,
      new Uint8Array(MAX_UPLOAD_BYTES + 1),
      'application/pdf',
    );
    const submitted = await api('POST', '/v1/review/jobs', {
      key: firm.key,
      body: {
        documentKey: upload.body.documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLI-1',
        documentReference: 'DOC-1',
        factFindSummary: {},
      },
    });
    expect([submitted.status, submitted.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const jobs = await api('GET', '/v1/review/jobs', { key: firm.key });
    expect(jobs.body.data).toEqual([]);
  });
});
