import { actorName, dateTime, day, hasNextPage, percent, words } from '../../../console/src/pages/format.js';

describe('the console pages’ words for values', () => {
  it.each([
    ['PENDING_SIGNOFF', 'Pending signoff'],
    ['rejectionRate', 'Rejection rate'],
    ['annotationFrequency', 'Annotation frequency'],
    ['AI_MODEL', 'AI model'],
    ['API_KEY', 'API key'],
    ['SLA_BREACHED', 'SLA breached'],
    ['DAILY', 'Daily'],
  ])('%s reads as %s', (value, expected) => {
    expect(words(value)).toBe(expected);
  });

  it('writes fractions as percentages and says when there is no data', () => {
    expect(percent(0.1875)).toBe('18.8 %');
    expect(percent(1, 0)).toBe('100 %');
    expect(percent(0)).toBe('0.0 %');
    expect(percent(null)).toBe('no data');
    expect(percent(undefined)).toBe('no data');
  });

  it('writes instants in UTC to the minute, days as dates, and a dash for none', () => {
    expect(dateTime('2026-11-26T16:20:20.600Z')).toBe('2026-11-26 16:20 UTC');
    expect(dateTime('2026-11-26T17:20:20.600+01:00')).toBe('2026-11-26 16:20 UTC');
    expect(dateTime(null)).toBe('—');
    expect(day('2026-03-31T23:59:59.999Z')).toBe('2026-03-31');
    expect(day(undefined)).toBe('—');
  });
});

describe('who acted', () => {
  it('names a user, says an API key is one, and admits not knowing', () => {
    expect(actorName({ type: 'USER', name: 'Sam Senior' })).toBe('Sam Senior');
    expect(actorName({ type: 'API_KEY', name: 'default' })).toBe('API key "default"');
    expect(actorName(null)).toBe('unknown');
  });
});

describe('whether a paged list has a next page', () => {
  it('follows the cursor when the API gives one, whatever the page count says', () => {
    expect(hasNextPage({ page: 1, total: null, totalPages: null, nextCursor: 'abc' })).toBe(true);
    expect(hasNextPage({ page: 3, total: 30, totalPages: 1, nextCursor: 'abc' })).toBe(true);
    expect(hasNextPage({ page: 1, total: null, totalPages: null, nextCursor: null })).toBe(false);
    expect(hasNextPage({ page: 1, total: 60, totalPages: 3, nextCursor: null })).toBe(false);
  });

  it('compares page numbers when there is no cursor field', () => {
    expect(hasNextPage({ page: 1, total: 60, totalPages: 3 })).toBe(true);
    expect(hasNextPage({ page: 3, total: 60, totalPages: 3 })).toBe(false);
    expect(hasNextPage({ page: 1, total: 0, totalPages: 0 })).toBe(false);
    expect(hasNextPage({ page: 1, total: null, totalPages: null })).toBe(false);
  });
});
