import { canonicalJson, sha256Hex } from '../ledger/hashing.js';

/** The request header (draft-ietf-httpapi-idempotency-key-header), read lower-case as API Gateway gives it. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
/** Set on an answer that is the stored answer of an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
/** Longest key accepted (characters of the key itself, quotes and escapes not counted). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type ParsedIdempotencyKey =
  | { readonly kind: 'absent' }
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'malformed'; readonly message: string };

/** An HTTP token (RFC 9110 tchar), plus ':' and '/' as a Structured Field token allows (RFC 8941 §3.3.4). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z:/]+$/;
/** A Structured Field string (RFC 8941 §3.3.3): printable ASCII; '"' and '\' only escaped. */
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * Reads an `Idempotency-Key` header value: a token (`8e03978e-40d5-43e8-bc93-6894a57f9324`) or a quoted string
 * (`"8e03978e-…"`, the draft's Structured Field form), 1 to 255 characters. The quoted and bare forms of the
 * same characters are the same key. Anything else (empty, a list, control or non-ASCII characters, too long) is
 * malformed: the caller answers 400 and does nothing.
 */
export function parseIdempotencyKey(raw: string | undefined): ParsedIdempotencyKey {
  if (raw === undefined) return { kind: 'absent' };
  const value = raw.trim();
  const quoted = QUOTED.exec(value);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, '$1') : TOKEN.test(value) ? value : undefined;
  if (key === undefined)
    return {
      kind: 'malformed',
      message: 'Idempotency-Key must be a token or a quoted string of printable ASCII characters',
    };
  if (key.length === 0) return { kind: 'malformed', message: 'Idempotency-Key must not be empty' };
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return {
      kind: 'malformed',
      message: `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`,
    };
  return { kind: 'key', key };
}

/** What makes two requests "the same" for a key: method, path (with its query string) and parsed body. */
export interface RequestIdentity {
  method: string;
  path: string;
  query?: string;
  /** The parsed JSON body; undefined when there is none. */
  body: unknown;
}

/**
 * SHA-256 (hex) of the request's method, path, query string and body in its RFC 8785 canonical form, so the
 * same JSON sent with other whitespace or member order is the same request, and any other value is not.
 */
export function requestFingerprint(request: RequestIdentity): string {
  return sha256Hex(
    canonicalJson([
      request.method.toUpperCase(),
      request.path,
      request.query ?? '',
      request.body === undefined ? null : request.body,
    ]),
  );
}
