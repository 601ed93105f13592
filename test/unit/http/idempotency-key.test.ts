import {
  MAX_IDEMPOTENCY_KEY_LENGTH,
  parseIdempotencyKey,
  requestFingerprint,
} from '../../../shared/http/idempotency-key.js';
import { takesIdempotencyKey } from '../../../shared/routes/route.js';
import { isKept } from '../../../shared/http/idempotency.js';

describe('parseIdempotencyKey', () => {
  it('is absent when the header is', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({ kind: 'absent' });
  });

  it.each([
    ['a UUID token', '8e03978e-40d5-43e8-bc93-6894a57f9324', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
    ['a token with every tchar and : /', "a!#$%&'*+-.^_`|~:/9", "a!#$%&'*+-.^_`|~:/9"],
    ['a quoted string', '"8e03978e-40d5"', '8e03978e-40d5'],
    ['a quoted string with spaces and escapes', '"a b \\"c\\" \\\\ d"', 'a b "c" \\ d'],
    ['surrounding whitespace', '  abc  ', 'abc'],
    ['255 characters', 'k'.repeat(255), 'k'.repeat(255)],
    ['255 characters quoted', `"${'k'.repeat(255)}"`, 'k'.repeat(255)],
  ])('reads %s', (_what, raw, key) => {
    expect(parseIdempotencyKey(raw)).toEqual({ kind: 'key', key });
  });

  it.each([
    ['empty', ''],
    ['only whitespace', '   '],
    ['empty quotes', '""'],
    ['256 characters', 'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1)],
    ['256 characters quoted', `"${'k'.repeat(MAX_IDEMPOTENCY_KEY_LENGTH + 1)}"`],
    ['a list (a repeated header)', 'a, b'],
    ['an inner space', 'a b'],
    ['an unterminated quote', '"abc'],
    ['an unknown escape', '"a\\b"'],
    ['a control character', 'a\tb'],
    ['non-ASCII', 'clé'],
    ['a quote inside a token', 'a"b'],
  ])('refuses %s', (_what, raw) => {
    expect(parseIdempotencyKey(raw)).toMatchObject({ kind: 'malformed', message: expect.any(String) });
  });
});

describe('requestFingerprint', () => {
  const base = { method: 'POST', path: '/v1/incidents', query: '', body: { a: 1, b: [1, 2], c: { d: 'x' } } };

  it('is the SHA-256 hex of the request', () => {
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('ignores member order (the canonical form) and the case of the method', () => {
    expect(requestFingerprint({ ...base, method: 'post', body: { c: { d: 'x' }, b: [1, 2], a: 1 } })).toBe(
      requestFingerprint(base),
    );
  });

  it.each([
    ['method', { method: 'PATCH' }],
    ['path', { path: '/v1/incidents/inc_1' }],
    ['query', { query: 'x=1' }],
    ['body value', { body: { a: 2, b: [1, 2], c: { d: 'x' } } }],
    ['array order', { body: { a: 1, b: [2, 1], c: { d: 'x' } } }],
    ['no body', { body: undefined }],
  ])('differs with the %s', (_what, change) => {
    expect(requestFingerprint({ ...base, ...change })).not.toBe(requestFingerprint(base));
  });

  it('keeps the fields apart (no ambiguity from concatenation)', () => {
    expect(requestFingerprint({ method: 'POST', path: '/a', query: 'b', body: undefined })).not.toBe(
      requestFingerprint({ method: 'POST', path: '/ab', query: '', body: undefined }),
    );
  });
});

describe('which answers are kept for a replay', () => {
  it.each([200, 201, 202, 204, 400, 403, 404, 410, 413, 415, 422])('keeps %s', (status) => {
    expect(isKept(status)).toBe(true);
  });
  it.each([408, 409, 425, 429, 500, 502, 503, 504])('does not keep %s (the key is released)', (status) => {
    expect(isKept(status)).toBe(false);
  });
});

describe('which routes take the header', () => {
  const authenticated = { kind: 'authenticated', credentials: 'any' } as const;
  it('every authenticated POST and PATCH', () => {
    expect(takesIdempotencyKey({ method: 'POST', auth: authenticated })).toBe(true);
    expect(takesIdempotencyKey({ method: 'PATCH', auth: authenticated })).toBe(true);
  });
  it('no GET, PUT or DELETE, and no public route', () => {
    expect(takesIdempotencyKey({ method: 'GET', auth: authenticated })).toBe(false);
    expect(takesIdempotencyKey({ method: 'DELETE', auth: authenticated })).toBe(false);
    expect(takesIdempotencyKey({ method: 'POST', auth: { kind: 'public' } })).toBe(false);
  });
});
