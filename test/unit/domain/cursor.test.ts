import { decodeCursor, encodeCursor, normalisedQuery } from '../../../shared/domain/pagination/cursor.js';
import { ValidationError } from '../../../shared/errors.js';

const scope = { firmId: 'firm-a', query: { list: 'records', eventType: 'DOCUMENT_SUBMITTED', pageSize: 25 } };
const position = { page: 3, offset: 50, key: { pk: 'FIRM#firm-a', sk: 'REC#000000000051' } };

function cursorError(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('list cursor', () => {
  it('round-trips its position for the same firm and query, as base64url', () => {
    const cursor = encodeCursor(scope, position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(scope, cursor)).toEqual(position);
  });

  it('does not depend on the order of the query parameters, nor on page, cursor or undefined values', () => {
    const cursor = encodeCursor(scope, position);
    const same = {
      firmId: 'firm-a',
      query: {
        pageSize: 25,
        page: 7,
        cursor: 'x',
        actorId: undefined,
        eventType: 'DOCUMENT_SUBMITTED',
        list: 'records',
      },
    };
    expect(decodeCursor(same, cursor)).toEqual(position);
    expect(normalisedQuery(same.query)).toBe(normalisedQuery(scope.query));
  });

  it('refuses a cursor of another firm', () => {
    const error = cursorError(() =>
      decodeCursor({ ...scope, firmId: 'firm-b' }, encodeCursor(scope, position)),
    );
    expect(error.details).toEqual([
      { path: 'query.cursor', message: 'The cursor was issued to another firm' },
    ]);
  });

  it.each([
    ['another filter value', { eventType: 'REVIEW_COMPLETED' }],
    ['another page size', { pageSize: 50 }],
    ['an added filter', { actorId: 'u1' }],
    ['another list', { list: 'jobs' }],
  ])('refuses a cursor of another query: %s', (_name, change) => {
    const other = { ...scope, query: { ...scope.query, ...change } };
    const error = cursorError(() => decodeCursor(other, encodeCursor(scope, position)));
    expect(error.details?.[0]?.path).toBe('query.cursor');
    expect(error.details?.[0]?.message).toMatch(/another query/);
  });

  it('refuses a cursor whose bytes were altered, cut or garbled', () => {
    const cursor = encodeCursor(scope, position);
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<string, unknown>;
    const moved = Buffer.from(
      JSON.stringify({ ...body, k: { pk: 'FIRM#firm-a', sk: 'REC#000000000099' } }),
    ).toString('base64url');
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    for (const bad of [moved, flipped, cursor.slice(0, -3), 'not a cursor!', '', 'e30', 'x'.repeat(3000)]) {
      const error = cursorError(() => decodeCursor(scope, bad));
      expect(error.details?.[0]?.path).toBe('query.cursor');
    }
  });
});
