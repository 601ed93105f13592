/**
 * Object storage. Buckets are logical names resolved by the adapter: `immutable` is write-once
 * (S3 Object Lock in AWS; the local adapter refuses overwrite and delete).
 */
export type BucketName = 'immutable' | 'uploads' | 'certificates';

export interface StoredObject {
  body: Uint8Array;
  contentType: string;
}

/** An object's size and type, known without reading it (S3 HeadObject). */
export interface ObjectInfo {
  size: number;
  contentType: string;
}

/** An object to read chunk by chunk (hashing it without holding it whole first). */
export interface ObjectStream extends ObjectInfo {
  body: AsyncIterable<Uint8Array>;
}

/**
 * What a presigned PUT URL allows: exactly this Content-Type (signed), until expiry. Single use: the local
 * store refuses a second PUT to the key (412); S3 does when the client sends the recommended
 * `If-None-Match: *` (not signed, so the spec's Content-Type-only client is not refused).
 */
export interface PresignPutOptions {
  contentType: string;
  expiresInSeconds: number;
  /**
   * Largest body the upload may carry. The local store enforces it at PUT time; an S3 presigned PUT cannot,
   * so in AWS the consumer of the upload checks the size (head) before reading it.
   */
  maxBytes: number;
}

export interface PresignedPut {
  url: string;
  /** ISO-8601 instant after which the URL is refused. */
  expiresAt: string;
  /** Headers the PUT should carry as given: Content-Type (signed, required) and If-None-Match: * (advised). */
  headers: Record<string, string>;
}

/** The headers of a presigned single-use PUT: the signed Content-Type and the advised `If-None-Match: *`. */
export function presignedPutHeaders(contentType: string): Record<string, string> {
  return { 'Content-Type': contentType, 'If-None-Match': '*' };
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
  /** The object's size and type without its bytes, or null when absent. */
  head(bucket: BucketName, key: string): Promise<ObjectInfo | null>;
  /** The object as a stream of chunks, or null when absent. */
  stream(bucket: BucketName, key: string): Promise<ObjectStream | null>;
  /** Keys under a prefix, in lexicographic order. */
  list(bucket: BucketName, prefix: string): AsyncIterable<string>;
  /** Deletes an object; refused on the immutable bucket. */
  delete(bucket: BucketName, key: string): Promise<void>;
  /**
   * A URL a client can PUT the object's bytes to without credentials: only with the given Content-Type, once
   * (a second PUT is 412: always locally, in S3 when the client sends `If-None-Match: *`), and before expiry. The local store also enforces the
   * size limit; S3 cannot (see docs/architecture.md, "Document uploads").
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
