import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import {
  ImmutableObjectError,
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
import {
  presignLocalGet,
  presignLocalPut,
  type UploadSink,
  type UrlSigningSecret,
} from './presigned-uploads.js';

/** What presigning needs locally: the server's base URL and the HMAC secret in DATA_DIR. */
export interface LocalPresignOptions {
  baseUrl: string;
  secret: UrlSigningSecret;
  /** Epoch milliseconds; tests pass a fixed clock. */
  now?: () => number;
}

const KEY_PATTERN = /^[A-Za-z0-9!_.*'()\-/]+$/;
/** Directories a store remembers at most (see FsObjectStore.dirs); forgetting one costs one mkdir. */
const MAX_KNOWN_DIRS = 10_000;

/**
 * Object store on the filesystem: `<root>/<bucket>/data/<key>` holds the bytes and
 * `<root>/<bucket>/meta/<key>.json` the content type. Writes are atomic (temp file, then rename or link);
 * the immutable bucket creates with link(2), which fails when the key exists, so it can never overwrite.
 */
export class FsObjectStore implements ObjectStore, UploadSink {
  /**
   * Directories this store made or found: a write skips mkdir for them (one fs call fewer per write). Review jobs
   * and uploads each have a directory of their own, so the set is emptied when it reaches MAX_KNOWN_DIRS.
   */
  private readonly dirs = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly presign?: LocalPresignOptions,
  ) {}

  /** Writes a file, making its directory first unless this store knows it (made again if it vanished since). */
  private async writeIn(path: string, body: string | Uint8Array): Promise<void> {
    const dir = dirname(path);
    if (this.dirs.has(dir)) {
      try {
        return await writeFile(path, body);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // vanished: made again below
      }
    }
    await mkdir(dir, { recursive: true });
    if (this.dirs.size >= MAX_KNOWN_DIRS) this.dirs.clear();
    this.dirs.add(dir);
    await writeFile(path, body);
  }

  private paths(bucket: BucketName, key: string): { data: string; meta: string } {
    if (
      !KEY_PATTERN.test(key) ||
      key.split('/').some((part) => part === '' || part === '.' || part === '..')
    ) {
      throw new Error(`Invalid object key: ${key}`);
    }
    return {
      data: join(this.root, bucket, 'data', key),
      meta: join(this.root, bucket, 'meta', `${key}.json`),
    };
  }

  async put(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<void> {
    const { data, meta } = this.paths(bucket, key);
    const temp = `${data}.${randomUUID()}.tmp`;
    // The content type and the bytes side by side; the object appears (link or rename) only once both are written.
    await Promise.all([this.writeIn(meta, JSON.stringify({ contentType })), this.writeIn(temp, body)]);
    try {
      if (bucket === 'immutable') {
        try {
          await link(temp, data);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          const existing = await readFile(data);
          if (!existing.equals(Buffer.from(body))) throw new ImmutableObjectError(bucket, key, 'overwrite');
        }
      } else {
        // rename(2) replaces atomically, so concurrent writers of one key (S3: last writer wins) cannot
        // collide the way unlink-then-link could.
        await rename(temp, data);
      }
    } finally {
      await rm(temp, { force: true });
    }
  }

  /** Creates the object only when the key is absent (link(2) fails on an existing key): single-use uploads. */
  async putIfAbsent(
    bucket: BucketName,
    key: string,
    body: Uint8Array,
    contentType: string,
  ): Promise<boolean> {
    const { data, meta } = this.paths(bucket, key);
    const temp = `${data}.${randomUUID()}.tmp`;
    await this.writeIn(temp, body);
    try {
      await link(temp, data);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    } finally {
      await rm(temp, { force: true });
    }
    await this.writeIn(meta, JSON.stringify({ contentType }));
    return true;
  }

  async exists(bucket: BucketName, key: string): Promise<boolean> {
    return (await this.get(bucket, key)) !== null;
  }

  async presignPut(bucket: BucketName, key: string, options: PresignPutOptions): Promise<PresignedPut> {
    if (!this.presign) throw new Error('This object store was created without a base URL: cannot presign');
    this.paths(bucket, key);
    const now = (this.presign.now ?? Date.now)();
    return presignLocalPut(await this.presign.secret.get(), this.presign.baseUrl, bucket, key, options, now);
  }

  async presignGet(bucket: BucketName, key: string, options: PresignGetOptions): Promise<PresignedGet> {
    if (!this.presign) throw new Error('This object store was created without a base URL: cannot presign');
    this.paths(bucket, key);
    const now = (this.presign.now ?? Date.now)();
    return presignLocalGet(await this.presign.secret.get(), this.presign.baseUrl, bucket, key, options, now);
  }

  async get(bucket: BucketName, key: string): Promise<StoredObject | null> {
    const { data, meta } = this.paths(bucket, key);
    try {
      const body = await readFile(data);
      const { contentType } = JSON.parse(await readFile(meta, 'utf8').catch(() => '{}')) as {
        contentType?: string;
      };
      return { body: new Uint8Array(body), contentType: contentType ?? 'application/octet-stream' };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async head(bucket: BucketName, key: string): Promise<ObjectInfo | null> {
    const { data, meta } = this.paths(bucket, key);
    try {
      const { size } = await stat(data);
      return { size, contentType: await this.contentTypeOf(meta) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async stream(bucket: BucketName, key: string): Promise<ObjectStream | null> {
    const info = await this.head(bucket, key);
    if (!info) return null;
    return { ...info, body: createReadStream(this.paths(bucket, key).data) };
  }

  private async contentTypeOf(meta: string): Promise<string> {
    const { contentType } = JSON.parse(await readFile(meta, 'utf8').catch(() => '{}')) as {
      contentType?: string;
    };
    return contentType ?? 'application/octet-stream';
  }

  async *list(bucket: BucketName, prefix: string): AsyncIterable<string> {
    const base = join(this.root, bucket, 'data');
    // Start at the deepest directory the prefix names, then filter by the full prefix.
    const dirPart = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
    const keys: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (!entry.name.endsWith('.tmp')) {
          const key = relative(base, full).split(sep).join('/');
          if (key.startsWith(prefix)) keys.push(key);
        }
      }
    };
    await walk(join(base, dirPart));
    keys.sort();
    yield* keys;
  }

  async delete(bucket: BucketName, key: string): Promise<void> {
    if (bucket === 'immutable') throw new ImmutableObjectError(bucket, key, 'delete');
    const { data, meta } = this.paths(bucket, key);
    await rm(data, { force: true });
    await rm(meta, { force: true });
  }
}
