import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  presignedPutHeaders,
  type BucketName,
  type PresignedGet,
  type PresignedPut,
  type PresignGetOptions,
  type StoredObject,
} from '../../ports/object-store.js';
import type { PresignPutOptions } from '../../ports/object-store.js';

/** Path prefix the local server answers presigned object URLs under: `/local-objects/<bucket>/<key>`. */
export const LOCAL_OBJECTS_PREFIX = '/local-objects/';

/** Buckets a local presigned PUT may write to. */
const PRESIGNABLE: readonly BucketName[] = ['uploads'];
/** Buckets a local presigned GET may read from: certificate PDFs and review documents (never uploads). */
const READABLE: readonly BucketName[] = ['certificates', 'immutable'];

/**
 * The HMAC secret that signs local presigned URLs: 32 random bytes, hex, created once in DATA_DIR with mode
 * 0600 (like the signing key), so the server and any process sharing DATA_DIR (ledgerctl, tests) agree.
 */
export class UrlSigningSecret {
  private secret: Promise<Buffer> | undefined;

  constructor(private readonly file: string) {}

  get(): Promise<Buffer> {
    return (this.secret ??= this.load().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    }));
  }

  private async load(): Promise<Buffer> {
    try {
      return Buffer.from((await readFile(this.file, 'utf8')).trim(), 'hex');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    try {
      await writeFile(this.file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return Buffer.from((await readFile(this.file, 'utf8')).trim(), 'hex');
  }
}

/** What a local presigned PUT URL carries (all of it covered by the signature). */
export interface PutGrant {
  bucket: BucketName;
  key: string;
  /** Epoch seconds. */
  expires: number;
  contentType: string;
  maxBytes: number;
}

function stringToSign(grant: PutGrant): string {
  return ['PUT', grant.bucket, grant.key, grant.expires, grant.contentType, grant.maxBytes].join('\n');
}

export function signGrant(secret: Buffer, grant: PutGrant): string {
  return createHmac('sha256', secret).update(stringToSign(grant)).digest('hex');
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

/** Builds `<baseUrl>/local-objects/<bucket>/<key>?expires=&contentType=&maxBytes=&signature=`. */
export function presignLocalPut(
  secret: Buffer,
  baseUrl: string,
  bucket: BucketName,
  key: string,
  options: PresignPutOptions,
  nowMs: number,
): PresignedPut {
  const expires = Math.floor(nowMs / 1000) + options.expiresInSeconds;
  const grant: PutGrant = {
    bucket,
    key,
    expires,
    contentType: options.contentType,
    maxBytes: options.maxBytes,
  };
  const query = new URLSearchParams({
    expires: String(expires),
    contentType: options.contentType,
    maxBytes: String(options.maxBytes),
    signature: signGrant(secret, grant),
  });
  return {
    url: `${baseUrl.replace(/\/$/, '')}${LOCAL_OBJECTS_PREFIX}${bucket}/${encodeKey(key)}?${query}`,
    expiresAt: new Date(expires * 1000).toISOString(),
    headers: presignedPutHeaders(options.contentType),
  };
}

/** What a local presigned GET URL carries (all of it covered by the signature). */
export interface GetGrant {
  bucket: BucketName;
  key: string;
  /** Epoch seconds. */
  expires: number;
}

/** The method leads the signed text, so a PUT grant can never be replayed as a GET (or the reverse). */
export function signGetGrant(secret: Buffer, grant: GetGrant): string {
  return createHmac('sha256', secret)
    .update(['GET', grant.bucket, grant.key, grant.expires].join('\n'))
    .digest('hex');
}

/** Builds `<baseUrl>/local-objects/<bucket>/<key>?expires=&signature=`, a read-only URL for one object. */
export function presignLocalGet(
  secret: Buffer,
  baseUrl: string,
  bucket: BucketName,
  key: string,
  options: PresignGetOptions,
  nowMs: number,
): PresignedGet {
  const expires = Math.floor(nowMs / 1000) + options.expiresInSeconds;
  const query = new URLSearchParams({
    expires: String(expires),
    signature: signGetGrant(secret, { bucket, key, expires }),
  });
  return {
    url: `${baseUrl.replace(/\/$/, '')}${LOCAL_OBJECTS_PREFIX}${bucket}/${encodeKey(key)}?${query}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

export type VerifyGetResult =
  { ok: true; grant: GetGrant } | { ok: false; status: 403 | 404; code: string; message: string };

/** Checks a GET request line against its signature, then its expiry (S3's order). */
export function verifyGet(secret: Buffer, requestUrl: string, nowMs: number): VerifyGetResult {
  const denied = (code: string, message: string): VerifyGetResult => ({
    ok: false,
    status: 403,
    code,
    message,
  });
  const parsed = parseObjectPath(requestUrl);
  if (!parsed) return denied('AccessDenied', 'Malformed key');
  const { bucket, key, params } = parsed;
  if (!READABLE.includes(bucket) || key === '')
    return { ok: false, status: 404, code: 'NoSuchBucket', message: 'No such bucket' };
  const expires = Number(params.get('expires'));
  if (!Number.isSafeInteger(expires))
    return denied('AccessDenied', 'Query-string authentication requires expires and signature');
  const signature = params.get('signature') ?? '';
  const expected = Buffer.from(signGetGrant(secret, { bucket, key, expires }), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return denied('SignatureDoesNotMatch', 'The request signature does not match');
  if (Math.floor(nowMs / 1000) > expires) return denied('AccessDenied', 'Request has expired');
  return { ok: true, grant: { bucket, key, expires } };
}

function parseObjectPath(
  requestUrl: string,
): { bucket: BucketName; key: string; params: URLSearchParams } | null {
  const url = new URL(requestUrl, 'http://localhost');
  const rest = url.pathname.slice(LOCAL_OBJECTS_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash <= 0) return { bucket: '' as BucketName, key: '', params: url.searchParams };
  try {
    const key = rest
      .slice(slash + 1)
      .split('/')
      .map(decodeURIComponent)
      .join('/');
    return { bucket: rest.slice(0, slash) as BucketName, key, params: url.searchParams };
  } catch {
    return null;
  }
}

export type VerifyResult =
  { ok: true; grant: PutGrant } | { ok: false; status: 403 | 404; code: string; message: string };

/**
 * Checks a PUT request line and Content-Type against its signature: the S3 failure codes, in S3's order
 * (a bad or missing signature before expiry, so a tampered expiry reads as a signature failure).
 */
export function verifyPut(
  secret: Buffer,
  requestUrl: string,
  contentTypeHeader: string | undefined,
  nowMs: number,
): VerifyResult {
  const denied = (code: string, message: string): VerifyResult => ({ ok: false, status: 403, code, message });
  const url = new URL(requestUrl, 'http://localhost');
  const rest = url.pathname.slice(LOCAL_OBJECTS_PREFIX.length);
  const slash = rest.indexOf('/');
  const bucket = rest.slice(0, slash) as BucketName;
  let key: string;
  try {
    key = rest
      .slice(slash + 1)
      .split('/')
      .map(decodeURIComponent)
      .join('/');
  } catch {
    return denied('AccessDenied', 'Malformed key');
  }
  if (slash <= 0 || !PRESIGNABLE.includes(bucket) || key === '')
    return { ok: false, status: 404, code: 'NoSuchBucket', message: 'No such bucket' };
  const params = url.searchParams;
  const expires = Number(params.get('expires'));
  const maxBytes = Number(params.get('maxBytes'));
  const contentType = params.get('contentType');
  const signature = params.get('signature') ?? '';
  if (!Number.isSafeInteger(expires) || !Number.isSafeInteger(maxBytes) || contentType === null)
    return denied(
      'AccessDenied',
      'Query-string authentication requires expires, contentType, maxBytes and signature',
    );
  const grant: PutGrant = { bucket, key, expires, contentType, maxBytes };
  const expected = Buffer.from(signGrant(secret, grant), 'hex');
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return denied('SignatureDoesNotMatch', 'The request signature does not match');
  if (Math.floor(nowMs / 1000) > expires) return denied('AccessDenied', 'Request has expired');
  // The header is part of what S3 signs: a different Content-Type is a signature mismatch there too.
  if ((contentTypeHeader ?? '').trim().toLowerCase() !== contentType.toLowerCase())
    return denied('SignatureDoesNotMatch', 'Content-Type does not match the signed content type');
  return { ok: true, grant };
}

/** Where accepted uploads go: created only when the key is absent (single use). */
export interface UploadSink {
  exists(bucket: BucketName, key: string): Promise<boolean>;
  /** False when the key already exists. */
  putIfAbsent(bucket: BucketName, key: string, body: Uint8Array, contentType: string): Promise<boolean>;
}

/** Where presigned GETs read from. */
export interface ObjectSource {
  get(bucket: BucketName, key: string): Promise<StoredObject | null>;
}

/** Reads a request body, or null when it exceeds maxBytes (the rest is drained). */
export type BodyReader = (maxBytes: number) => Promise<Buffer | null>;

/**
 * The local server's answer to `/local-objects/...`: the object store speaking, S3-like (200 empty, or an
 * XML error), not the API's JSON envelope. Returns false for other paths.
 */
export function presignedUploadHandler(options: {
  secret: UrlSigningSecret;
  sink: UploadSink & ObjectSource;
  now?: () => number;
}): (request: IncomingMessage, response: ServerResponse, readBody: BodyReader) => Promise<boolean> {
  const now = options.now ?? Date.now;
  return async (request, response, readBody) => {
    if (!request.url?.startsWith(LOCAL_OBJECTS_PREFIX)) return false;
    if (request.method === 'GET') {
      await readBody(0);
      const allowed = verifyGet(await options.secret.get(), request.url, now());
      if (!allowed.ok) {
        s3Error(response, allowed.status, allowed.code, allowed.message);
        return true;
      }
      const object = await options.sink.get(allowed.grant.bucket, allowed.grant.key);
      if (!object) {
        s3Error(response, 404, 'NoSuchKey', 'The specified key does not exist');
        return true;
      }
      response.writeHead(200, {
        'content-type': object.contentType,
        'content-length': object.body.byteLength,
        'cache-control': 'private, no-store',
      });
      response.end(Buffer.from(object.body));
      return true;
    }
    if (request.method !== 'PUT') {
      await readBody(0);
      s3Error(response, 405, 'MethodNotAllowed', 'Only GET and PUT are allowed on a presigned URL');
      return true;
    }
    const verified = verifyPut(
      await options.secret.get(),
      request.url,
      request.headers['content-type'],
      now(),
    );
    if (!verified.ok) {
      await readBody(0);
      s3Error(response, verified.status, verified.code, verified.message);
      return true;
    }
    const { bucket, key, contentType, maxBytes } = verified.grant;
    // Single use, with or without the recommended If-None-Match: * (the spec's client sends only Content-Type):
    // a second PUT to the key is 412, as S3 answers a PUT carrying the condition.
    const used = () =>
      s3Error(
        response,
        412,
        'PreconditionFailed',
        'At least one of the pre-conditions you specified did not hold',
      );
    if (await options.sink.exists(bucket, key)) {
      await readBody(0);
      used();
      return true;
    }
    const body = await readBody(maxBytes);
    if (body === null) {
      s3Error(
        response,
        413,
        'EntityTooLarge',
        `Your proposed upload exceeds the maximum of ${maxBytes} bytes`,
      );
      return true;
    }
    if (!(await options.sink.putIfAbsent(bucket, key, new Uint8Array(body), contentType))) {
      used();
      return true;
    }
    response.writeHead(200, { 'content-length': '0' });
    response.end();
    return true;
  };
}

function s3Error(response: ServerResponse, status: number, code: string, message: string): void {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;
  response.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
  response.end(xml);
}
