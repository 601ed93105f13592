import type { S3Client } from '@aws-sdk/client-s3';
import {
  ImmutableObjectError,
  presignedPutHeaders,
  type BucketName,
  type ObjectInfo,
  type ObjectStore,
  type ObjectStream,
  type PresignedGet,
  type PresignedPut,
  type PresignGetOptions,
  type PresignPutOptions,
  type StoredObject,
} from '../../ports/object-store.js';
import { httpStatusOf, lazyClient, type ClientSource } from './lazy-sdk.js';

/**
 * S3 object store. The immutable bucket has Object Lock (COMPLIANCE) with default retention; writes to it
 * are conditional (If-None-Match: *), so an existing key is never given a second version, and an identical
 * re-write (outbox repair) is recognised by comparing bytes.
 */
export class S3ObjectStore implements ObjectStore {
  private readonly client: () => Promise<S3Client>;

  constructor(
    client: ClientSource<S3Client>,
    private readonly buckets: Record<BucketName, string>,
    private readonly now: () => number = Date.now,
  ) {
    this.client = lazyClient(client);
  }

  /**
   * A SigV4 query-string presigned PutObject. Content-Type is a signed header: S3 refuses a PUT with another
   * type (SignatureDoesNotMatch). `If-None-Match: *` is returned among the upload's headers but not signed: a
   * client that sends it (our guidance) gets 412 PreconditionFailed on a second PUT, so the URL is single-use;
   * the spec's client, which sends only Content-Type, still works, and a document key is consumed once by
   * submission either way. S3 cannot limit the size of a presigned PUT: the consumer of the upload checks it
   * with HeadObject before reading (docs/architecture.md, "Document uploads").
   */
  async presignPut(bucket: BucketName, key: string, options: PresignPutOptions): Promise<PresignedPut> {
    const signingDate = new Date(this.now());
    const [{ PutObjectCommand }, { getSignedUrl }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('@aws-sdk/s3-request-presigner'),
    ]);
    const url = await getSignedUrl(
      await this.client(),
      new PutObjectCommand({
        Bucket: this.buckets[bucket],
        Key: key,
        ContentType: options.contentType,
      }),
      {
        expiresIn: options.expiresInSeconds,
        signingDate,
        signableHeaders: new Set(['content-type']),
      },
    );
    return {
      url,
      expiresAt: new Date(signingDate.getTime() + options.expiresInSeconds * 1000).toISOString(),
      headers: presignedPutHeaders(options.contentType),
    };
  }

  /** A SigV4 query-string presigned GetObject: read-only, this key only, until expiry. */
  async presignGet(bucket: BucketName, key: string, options: PresignGetOptions): Promise<PresignedGet> {
    const signingDate = new Date(this.now());
    const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([
      import('@aws-sdk/client-s3'),
      import('@aws-sdk/s3-request-presigner'),
    ]);
    const url = await getSignedUrl(
      await this.client(),
      new GetObjectCommand({ Bucket: this.buckets[bucket], Key: key }),
      { expiresIn: options.expiresInSeconds, signingDate },
    );
    return {
      url,
      expiresAt: new Date(signingDate.getTime() + options.expiresInSeconds * 1000).toISOString(),
    };
  }

  async put(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<void> {
    const immutable = bucket === 'immutable';
    const { PutObjectCommand } = await import('@aws-sdk/client-s3');
    try {
      await (
        await this.client()
      ).send(
        new PutObjectCommand({
          Bucket: this.buckets[bucket],
          Key: key,
          Body: body,
          ContentType: contentType,
          ChecksumAlgorithm: 'SHA256',
          ...(immutable ? { IfNoneMatch: '*' } : {}),
        }),
      );
    } catch (error) {
      if (!immutable || !isPreconditionFailed(error)) throw error;
      const existing = await this.get(bucket, key);
      if (!existing || !Buffer.from(existing.body).equals(Buffer.from(body))) {
        throw new ImmutableObjectError(bucket, key, 'overwrite');
      }
    }
  }

  async get(bucket: BucketName, key: string): Promise<StoredObject | null> {
    const response = await this.getObject(bucket, key);
    if (!response) return null;
    const body = await response.Body?.transformToByteArray();
    return {
      body: body ?? new Uint8Array(),
      contentType: response.ContentType ?? 'application/octet-stream',
    };
  }

  /** HeadObject: size and type without reading the body; null when absent. */
  async head(bucket: BucketName, key: string): Promise<ObjectInfo | null> {
    const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const client = await this.client();
    const response = await nullWhenMissing(
      client.send(new HeadObjectCommand({ Bucket: this.buckets[bucket], Key: key })),
    );
    if (!response) return null;
    return {
      size: response.ContentLength ?? 0,
      contentType: response.ContentType ?? 'application/octet-stream',
    };
  }

  /** GetObject, its body left as the SDK's stream (chunks as they arrive); null when absent. */
  async stream(bucket: BucketName, key: string): Promise<ObjectStream | null> {
    const response = await this.getObject(bucket, key);
    if (!response) return null;
    const body = response.Body as AsyncIterable<Uint8Array> | undefined;
    return {
      size: response.ContentLength ?? 0,
      contentType: response.ContentType ?? 'application/octet-stream',
      body: body ?? (async function* () {})(),
    };
  }

  /** GetObject's answer, its body not yet read; null when the key is absent. */
  private async getObject(bucket: BucketName, key: string) {
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const client = await this.client();
    return nullWhenMissing(client.send(new GetObjectCommand({ Bucket: this.buckets[bucket], Key: key })));
  }

  async *list(bucket: BucketName, prefix: string): AsyncIterable<string> {
    const { ListObjectsV2Command } = await import('@aws-sdk/client-s3');
    const client = await this.client();
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: this.buckets[bucket], Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async delete(bucket: BucketName, key: string): Promise<void> {
    if (bucket === 'immutable') throw new ImmutableObjectError(bucket, key, 'delete');
    const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
    await (await this.client()).send(new DeleteObjectCommand({ Bucket: this.buckets[bucket], Key: key }));
  }
}

/** The request's answer, or null when S3 says the key does not exist. */
async function nullWhenMissing<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  const name = (error as Error).name;
  return name === 'NoSuchKey' || name === 'NotFound' || httpStatusOf(error) === 404;
}

function isPreconditionFailed(error: unknown): boolean {
  return httpStatusOf(error) === 412 || (error as Error).name === 'PreconditionFailed';
}
