/**
 * Object storage. Buckets are logical names resolved by the adapter: `immutable` is write-once
 * (S3 Object Lock in AWS; the local adapter refuses overwrite and delete).
 */
export type BucketName = 'immutable' | 'uploads' | 'certificates';

export interface StoredObject {
  body: Uint8Array;
  contentType: string;
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
