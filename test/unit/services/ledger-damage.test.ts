import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { chainHeadMissing } from '../../../shared/services/integrity/ledger-damage.js';
import { keys } from '../../../shared/store/keys.js';
import { mockedStore } from '../../support/mocked-store.js';

/** Issue 32: a ledger whose chain head is gone is told apart from a new firm whose first records just landed. */

const { db, deps } = mockedStore();
const firmId = 'firm_1';
const head = keys.ledgerHead(firmId);

/** The head as successive reads find it (undefined: absent), and whether a record row exists. */
function ledger(heads: (number | undefined)[], rowExists: boolean): void {
  db.on(GetCommand).callsFake((input: { TableName: string; Key: Record<string, unknown> }) => {
    if (input.TableName !== 'ledger' || input.Key.sk !== head.sk) return {};
    const sequenceNumber = heads.length > 1 ? heads.shift() : heads[0];
    return sequenceNumber === undefined
      ? {}
      : { Item: { ...head, sequenceNumber, chainHash: 'ab', timestamp: 't' } };
  });
  db.on(QueryCommand).callsFake((input: { TableName: string }) => ({
    Items: input.TableName === 'ledger' && rowExists ? [{ sk: 'REC#000000000001' }] : [],
  }));
}

beforeEach(() => db.reset());

describe('chainHeadMissing', () => {
  it('is false for a firm never written to (no head, no row)', async () => {
    ledger([undefined], false);
    expect(await chainHeadMissing(deps, firmId, { copies: false })).toBe(false);
  });

  it('is true when the head is absent and stays absent while a record row exists', async () => {
    ledger([undefined], true);
    expect(await chainHeadMissing(deps, firmId, { copies: false })).toBe(true);
  });

  it('is false when the first records committed between the head read and the row read', async () => {
    // The caller read no head (headSequence 0); the first commit then wrote head and rows together.
    ledger([1], true);
    expect(await chainHeadMissing(deps, firmId, { headSequence: 0, copies: false })).toBe(false);
  });
});
