import { LogPolicyError, readLogPolicy } from '../../../shared/ledger/evidence-policy.js';
import { witnessVkey, edKey } from '../../support/evidence-log-fixtures.js';

/* The log policy as both front ends give it (the CLI's flags, the offline page's fields): one reading. */

const a = witnessVkey({ name: 'witness.a.example', key: edKey() });
const b = witnessVkey({ name: 'witness.b.example', key: edKey() });

describe('readLogPolicy', () => {
  it('takes vkeys one per entry (blank ones ignored), the count (default all) and a kept checkpoint', () => {
    expect(readLogPolicy({ witnesses: [` ${a} `, '', b, '  '] })).toEqual({
      witnesses: [a, b],
      witnessesNeeded: 2,
    });
    expect(readLogPolicy({ witnesses: [a, b], witnessesNeeded: ' 1 ', since: 'note\n' })).toEqual({
      witnesses: [a, b],
      witnessesNeeded: 1,
      since: 'note\n',
    });
    expect(readLogPolicy({ witnessesNeeded: '', since: '  \n' })).toEqual({
      witnesses: [],
      witnessesNeeded: 0,
    });
  });

  it.each([
    [{ witnesses: ['not a vkey'] }, 'witness'],
    [{ witnesses: [a], witnessesNeeded: '2' }, 'witnessesNeeded'],
    [{ witnesses: [a], witnessesNeeded: '-1' }, 'witnessesNeeded'],
    [{ witnesses: [a], witnessesNeeded: '0.5' }, 'witnessesNeeded'],
    [{ witnesses: [a], witnessesNeeded: 'one' }, 'witnessesNeeded'],
  ])('refuses %j, naming the field', (input, field) => {
    expect(() => readLogPolicy(input)).toThrow(LogPolicyError);
    try {
      readLogPolicy(input);
    } catch (error) {
      expect((error as LogPolicyError).field).toBe(field);
    }
  });
});
