import {
  immutableFirmPrefix,
  immutableRecordKey,
  immutableSequencePrefix,
  parseImmutableRecordKey,
} from '../../../shared/store/immutable-layout.js';

const FIRM = 'firm_01M800AVMBDRQQ387Q7ZCFA527';
const RECORD = 'rec_01M800B0ZQ4ZP1S5Y1JFE9V3QK';

describe('immutable store layout', () => {
  it('names a record copy ledger/<firmId>/<12-digit sequence>-<recordId>.json (docs/ledger-format.md)', () => {
    expect(immutableRecordKey(FIRM, 2, RECORD)).toBe(`ledger/${FIRM}/000000000002-${RECORD}.json`);
    expect(immutableRecordKey(FIRM, 999_999_999_999, RECORD)).toBe(
      `ledger/${FIRM}/999999999999-${RECORD}.json`,
    );
  });

  it('nests the key under its sequence prefix, and that under its firm prefix', () => {
    const key = immutableRecordKey(FIRM, 17, RECORD);
    expect(immutableFirmPrefix(FIRM)).toBe(`ledger/${FIRM}/`);
    expect(immutableSequencePrefix(FIRM, 17)).toBe(`ledger/${FIRM}/000000000017-`);
    expect(key.startsWith(immutableSequencePrefix(FIRM, 17))).toBe(true);
    expect(immutableSequencePrefix(FIRM, 17).startsWith(immutableFirmPrefix(FIRM))).toBe(true);
    // Sequence 1 is not a prefix of sequence 10's copies: the padding keeps positions apart.
    expect(immutableRecordKey(FIRM, 10, RECORD).startsWith(immutableSequencePrefix(FIRM, 1))).toBe(false);
  });

  it('lists in chain order: keys sort as their sequence numbers do', () => {
    const sequences = [1, 2, 9, 10, 11, 100, 1000, 123_456_789];
    const keys = sequences.map((n) => immutableRecordKey(FIRM, n, `rec_${1000 - (n % 1000)}`));
    expect([...keys].sort()).toEqual(keys);
  });

  it('parses what it builds', () => {
    for (const sequenceNumber of [1, 42, 999_999_999_999])
      expect(parseImmutableRecordKey(immutableRecordKey(FIRM, sequenceNumber, RECORD))).toEqual({
        firmId: FIRM,
        sequenceNumber,
        recordId: RECORD,
      });
  });

  it('rejects every other key', () => {
    for (const key of [
      `documents/${FIRM}/job_1/report.pdf`,
      `ledger/${FIRM}/`,
      `ledger/${FIRM}/000000000002.json`,
      `ledger/${FIRM}/2-${RECORD}.json`,
      `ledger/${FIRM}/0000000000002-${RECORD}.json`,
      `ledger/${FIRM}/000000000002-${RECORD}.json.bak`,
      `ledger/${FIRM}/000000000002-${RECORD}`,
      `ledger/${FIRM}/sub/000000000002-${RECORD}.json`,
      `x/ledger/${FIRM}/000000000002-${RECORD}.json`,
    ])
      expect(parseImmutableRecordKey(key)).toBeNull();
  });
});
