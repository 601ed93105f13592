import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { S3ObjectStore } from '../../../shared/adapters/aws/s3-object-store.js';
import { DocumentNotFoundError, PayloadTooLargeError } from '../../../shared/errors.js';
import type { Deps } from '../../../shared/runtime/deps.js';
import { readUpload } from '../../../shared/services/review/upload-read.js';

/*
 * Issue 12 part 6: in AWS a presigned PUT cannot limit the size, so the submission checks it with HeadObject
 * before reading a byte, then hashes the body as it streams, stopping as soon as it passes the limit.
 */

const s3 = mockClient(S3Client);
const buckets = { immutable: 'lock-bucket', uploads: 'uploads-bucket', certificates: 'certs-bucket' };
const store = new S3ObjectStore(new S3Client({}), buckets);
const deps = { objects: store } as unknown as Deps;
const KEY = 'uploads/firm_a/01J0000000000000000000000B/a.pdf';
const notFound = (name: string) =>
  new S3ServiceException({ name, $fault: 'client', $metadata: { httpStatusCode: 404 } });
const chunked = (...chunks: string[]) => Readable.from(chunks.map((c) => Buffer.from(c))) as never;

beforeEach(() => s3.reset());

describe('S3ObjectStore.head and stream', () => {
  it('reads size and type with HeadObject, null when absent', async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 42, ContentType: 'application/pdf' });
    expect(await store.head('uploads', KEY)).toEqual({ size: 42, contentType: 'application/pdf' });
    expect(s3.commandCalls(HeadObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'uploads-bucket',
      Key: KEY,
    });
    s3.on(HeadObjectCommand).rejects(notFound('NotFound'));
    expect(await store.head('uploads', KEY)).toBeNull();
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('streams the body chunk by chunk, null when absent', async () => {
    s3.on(GetObjectCommand).resolves({
      Body: chunked('ab', 'cd'),
      ContentLength: 4,
      ContentType: 'text/plain',
    });
    const object = await store.stream('uploads', KEY);
    const seen: string[] = [];
    for await (const chunk of object!.body) seen.push(Buffer.from(chunk).toString());
    expect([seen, object!.size, object!.contentType]).toEqual([['ab', 'cd'], 4, 'text/plain']);
    s3.on(GetObjectCommand).rejects(notFound('NoSuchKey'));
    expect(await store.stream('uploads', KEY)).toBeNull();
  });
});

describe('readUpload against S3', () => {
  it('refuses an object over the limit from its HeadObject size, without reading it (413)', async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 1025, ContentType: 'application/pdf' });
    await expect(readUpload(deps, KEY, 1024)).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('is 404 DOCUMENT_NOT_FOUND when HeadObject finds nothing', async () => {
    s3.on(HeadObjectCommand).rejects(notFound('NotFound'));
    await expect(readUpload(deps, KEY, 1024)).rejects.toBeInstanceOf(DocumentNotFoundError);
  });

  it('hashes the streamed chunks: the same sha256 as the whole body', async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 11, ContentType: 'application/pdf' });
    s3.on(GetObjectCommand).resolves({
      Body: chunked('hello', ' ', 'world'),
      ContentType: 'application/pdf',
    });
    const read = await readUpload(deps, KEY, 1024);
    expect(read.sha256).toBe(createHash('sha256').update('hello world').digest('hex'));
    expect(Buffer.from(read.body).toString()).toBe('hello world');
    expect(read.contentType).toBe('application/pdf');
  });

  it('stops reading as soon as the stream passes the limit (an object grown since HeadObject)', async () => {
    s3.on(HeadObjectCommand).resolves({ ContentLength: 4, ContentType: 'application/pdf' });
    let pulled = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          pulled++;
          yield Buffer.alloc(512);
        }
      })(),
    );
    s3.on(GetObjectCommand).resolves({ Body: endless as never });
    await expect(readUpload(deps, KEY, 1024)).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(pulled).toBeLessThan(10);
  });
});
