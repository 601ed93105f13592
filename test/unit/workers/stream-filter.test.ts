import { passesStreamFilters, streamFilterPattern } from '../../../shared/workers/stream-filter.js';
import { TAMPER_WATCH_FILTERS } from '../../../shared/workers/table.js';

const change = (eventName: string, sk: string) => ({
  eventName,
  dynamodb: { Keys: { pk: { S: 'FIRM#firm_a' }, sk: { S: sk } } },
});

describe('stream filters', () => {
  it('are the event filter patterns the event source mapping gets', () => {
    expect(TAMPER_WATCH_FILTERS.map((filter) => streamFilterPattern(filter, 'sk'))).toEqual([
      { eventName: ['MODIFY', 'REMOVE'], dynamodb: { Keys: { sk: { S: [{ prefix: 'REC#' }] } } } },
      { eventName: ['REMOVE'], dynamodb: { Keys: { sk: { S: ['HEAD'] } } } },
    ]);
  });

  it.each([
    ['MODIFY', 'REC#000000000001', true],
    ['REMOVE', 'REC#000000000001', true],
    ['INSERT', 'REC#000000000001', false],
    ['REMOVE', 'HEAD', true],
    ['MODIFY', 'HEAD', false],
    ['INSERT', 'HEAD', false],
    ['REMOVE', 'OUTBOX#000000000001', false],
    ['REMOVE', 'HEADX', false],
  ])('pass %s of %s locally as in AWS: %s', (eventName, sk, passes) => {
    expect(passesStreamFilters(TAMPER_WATCH_FILTERS, change(eventName, sk), 'sk')).toBe(passes);
  });

  it('drop a record without the sort key', () => {
    expect(
      passesStreamFilters(TAMPER_WATCH_FILTERS, { eventName: 'REMOVE', dynamodb: { Keys: {} } }, 'sk'),
    ).toBe(false);
  });
});
