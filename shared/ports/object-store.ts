/**
 * Object storage. Buckets are logical names resolved by the adapter: `immutable` is write-once
 * (S3 Object Lock in AWS; the local adapter refuses overwrite and delete).
 */
export type BucketName = 'immutable' | 'uploads' | 'certificates';

export interface StoredObject {
  body: Uint8Array;
  contentType: string;
}

/** What a presigned PUT URL allows: exactly this Content-Type, until expiry. */
export interface PresignPutOptions {
  contentType: string;
  expiresInSeconds: number;
  /**
   * Largest body the upload may carry. The local store enforces it at PUT time; an S3 presigned PUT cannot,
   * so in AWS the consumer of the upload must check the size before using it.
   */
  maxBytes: number;
}

export interface PresignedPut {
  url: string;
  /** ISO-8601 instant after which the URL is refused. */
  expiresAt: string;
}

/** What a presigned GET URL allows: reading this one object, until expiry. */
export interface PresignGetOptions {
  expiresInSeconds: number;
}

export interface PresignedGet {
  url: string;
  /** ISO-8601 instant after which the URL is refused. */
  expiresAt: string;
}

export interface ObjectStore {
  /**
   * Writes an object. On the immutable bucket a second write of identical bytes succeeds (idempotent
   * repair), while different bytes throw ImmutableObjectError.
   */
  put(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** The object, or null when absent. */
  get(bucket: BucketName, key: string): Promise<StoredObject | null>;
  /** Keys under a prefix, in lexicographic order. */
  list(bucket: BucketName, prefix: string): AsyncIterable<string>;
  /** Deletes an object; refused on the immutable bucket. */
  delete(bucket: BucketName, key: string): Promise<void>;
  /**
   * A URL a client can PUT the object's bytes to without credentials: only with the given Content-Type and
   * before expiry. The local store also refuses a second PUT to the key; S3 cannot (see docs/architecture.md).
   */
  presignPut(bucket: BucketName, key: string, options: PresignPutOptions): Promise<PresignedPut>;
  /** A URL anyone holding it can GET the object from without credentials, until expiry (certificate PDFs). */
  presignGet(bucket: BucketName, key: string, options: PresignGetOptions): Promise<PresignedGet>;
}

export class ImmutableObjectError extends Error {
  constructor(
    readonly bucket: BucketName,
    readonly key: string,
    action: 'overwrite' | 'delete',
  ) {
    super(`Refused to ${action} ${key} in the immutable bucket`);
    this.name = 'ImmutableObjectError';
  }
}
