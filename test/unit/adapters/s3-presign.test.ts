import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { S3ObjectStore } from '../../../shared/adapters/aws/s3-object-store.js';

describe('S3ObjectStore.presignPut', () => {
  // getSignedUrl signs offline: static credentials, no request is sent.
  const client = new S3Client({
    region: 'eu-west-2',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const store = new S3ObjectStore(
    client,
    { immutable: 'imm-bucket', uploads: 'uploads-bucket', certificates: 'cert-bucket' },
    () => now,
  );

  it('signs Content-Type only, and advises If-None-Match: * without signing it (the spec client sends only Content-Type)', async () => {
    const key = 'uploads/firm_x/01J0000000000000000000000E/report.pdf';
    const { url, expiresAt, headers } = await store.presignPut('uploads', key, {
      contentType: 'application/pdf',
      expiresInSeconds: 900,
      maxBytes: 1024,
    });
    const parsed = new URL(url);
    expect(parsed.hostname).toContain('uploads-bucket');
    expect(parsed.pathname).toBe(`/${key}`);
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(parsed.searchParams.get('X-Amz-Date')).toBe('20260101T120000Z');
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')?.split(';').sort()).toEqual([
      'content-type',
      'host',
    ]);
    // The advised condition is a header the client sends, never in the query (S3 would ignore it there).
    expect([...parsed.searchParams.keys()].map((k) => k.toLowerCase())).not.toContain('if-none-match');
    expect(headers).toEqual({ 'Content-Type': 'application/pdf', 'If-None-Match': '*' });
    expect(expiresAt).toBe('2026-01-01T12:15:00.000Z');
  });
});

describe('S3ObjectStore.presignGet', () => {
  const client = new S3Client({
    region: 'eu-west-2',
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  // The mock proves presigning is offline: no GetObject may reach S3 while a URL is signed.
  const s3 = mockClient(client);
  afterAll(() => s3.restore());
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const store = new S3ObjectStore(
    client,
    { immutable: 'imm-bucket', uploads: 'uploads-bucket', certificates: 'cert-bucket' },
    () => now,
  );

  it('signs a GetObject of the certificates bucket and key, expiring as asked, without calling S3', async () => {
    const key = 'certificates/firm_x/cert_01J0000000000000000000000E.pdf';
    const { url, expiresAt } = await store.presignGet('certificates', key, { expiresInSeconds: 900 });
    const parsed = new URL(url);
    expect(parsed.hostname).toContain('cert-bucket');
    expect(parsed.pathname).toBe(`/${key}`);
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(parsed.searchParams.get('X-Amz-Date')).toBe('20260101T120000Z');
    expect(parsed.searchParams.get('x-id')).toBe('GetObject');
    expect(expiresAt).toBe('2026-01-01T12:15:00.000Z');
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    expect(s3.calls()).toHaveLength(0);
  });
});
