import { createHash } from 'node:crypto';
import { ValidationError } from '../../errors.js';

/*
 * The opaque list cursor (DESIGN.md §pagination, issue 14 part 2). A cursor carries where the next page starts
 * (a DynamoDB key: string or number attributes), the page number and the count of items before it, and is
 * bound to the firm and to the normalised query that issued it (filters, order, pageSize; never page or
 * cursor). It is base64url of a small JSON object:
 *
 *   { v: 1, f: <firm digest>, q: <query digest>, n: <page number>, o: <items before it>, k: <key>, c: <check> }
 *
 * `c` is a digest over everything else, so a cursor altered or cut in transit is refused rather than read; it
 * is not a secret MAC (anyone can recompute it) and needs none: the firm comes from the caller's credential
 * (a foreign cursor names another firm's digest and is refused), and the store checks that the key lies in the
 * firm's partition and in the index of the query before it reads anything (shared/store/list-page.ts). At worst
 * a hand-made cursor starts the caller's own list at another position of it.
 */

/** A position in a list: the DynamoDB key of the last item of the previous page. */
export type CursorKey = Record<string, string | number>;

export interface CursorPosition {
  /** Page number of the page this cursor leads to (for pagination.page). */
  page: number;
  /** Items listed before that page (for a total known once the list ends). */
  offset: number;
  key: CursorKey;
}

/** The query a cursor belongs to: the firm and the normalised filters, order and page size. */
export interface CursorScope {
  firmId: string;
  /** Every query parameter that shapes the list (filters, order, pageSize), without page and cursor. */
  query: Readonly<Record<string, unknown>>;
}

const VERSION = 1;
const DIGEST_CHARS = 22; // 128 bits of SHA-256, base64url
const MAX_CURSOR_CHARS = 2048;

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, DIGEST_CHARS);

/** The query normalised: undefined values dropped, keys sorted, page and cursor left out. */
export function normalisedQuery(query: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(query)
    .filter(([name, value]) => value !== undefined && name !== 'page' && name !== 'cursor')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

const firmDigest = (firmId: string) => digest(`firm\n${firmId}`);
const queryDigest = (scope: CursorScope) => digest(`query\n${normalisedQuery(scope.query)}`);

interface Body {
  v: number;
  f: string;
  q: string;
  n: number;
  o: number;
  k: CursorKey;
}

const checkOf = (body: Body) =>
  digest(`check\n${JSON.stringify([body.v, body.f, body.q, body.n, body.o, body.k])}`);

export function encodeCursor(scope: CursorScope, position: CursorPosition): string {
  const body: Body = {
    v: VERSION,
    f: firmDigest(scope.firmId),
    q: queryDigest(scope),
    n: position.page,
    o: position.offset,
    k: position.key,
  };
  return Buffer.from(JSON.stringify({ ...body, c: checkOf(body) })).toString('base64url');
}

const invalid = (message: string) =>
  new ValidationError('Invalid cursor', [{ path: 'query.cursor', message }]);

/**
 * The position a cursor carries, after checking it was issued for this firm and this query; a
 * VALIDATION_ERROR (details path `cursor`) otherwise, before anything is read.
 */
export function decodeCursor(scope: CursorScope, cursor: string): CursorPosition {
  const body = parse(cursor);
  if (body.f !== firmDigest(scope.firmId)) throw invalid('The cursor was issued to another firm');
  if (body.q !== queryDigest(scope))
    throw invalid(
      'The cursor belongs to another query: repeat the filters, order and pageSize it was issued with',
    );
  return { page: body.n, offset: body.o, key: body.k };
}

function parse(cursor: string): Body {
  const malformed = invalid(
    'The cursor is malformed or was altered: use nextCursor exactly as it was returned',
  );
  if (cursor.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw malformed;
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw malformed;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw malformed;
  const { v, f, q, n, o, k, c } = raw as Record<string, unknown>;
  if (v !== VERSION || typeof f !== 'string' || typeof q !== 'string' || typeof c !== 'string')
    throw malformed;
  if (!Number.isSafeInteger(n) || (n as number) < 2 || !Number.isSafeInteger(o) || (o as number) < 0)
    throw malformed;
  if (typeof k !== 'object' || k === null || Array.isArray(k)) throw malformed;
  const entries = Object.entries(k);
  if (
    entries.length === 0 ||
    entries.length > 4 ||
    !entries.every(([, value]) => typeof value === 'string' || Number.isFinite(value))
  )
    throw malformed;
  const body: Body = { v, f, q, n: n as number, o: o as number, k: k as CursorKey };
  if (c !== checkOf(body)) throw malformed;
  return body;
}
