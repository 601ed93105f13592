import { jest } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { FsObjectStore } from '../../../shared/adapters/local/fs-object-store.js';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { Deps } from '../../../shared/runtime/deps.js';
import { logger, TAMPERING_DETECTED_LOG } from '../../../shared/runtime/logger.js';
import { judgeLedgerChange } from '../../../shared/services/integrity/tamper-watch.js';
import { keys } from '../../../shared/store/keys.js';
import { standingTamperFlags } from '../../../shared/store/tamper-store.js';
import { chainOf } from '../../support/chain-of.js';
import { memoryStore } from '../../support/memory-store.js';

/**
 * The tamper watch against a recovery running beside it (issue 32, fault 6): a lost ledger's REMOVE changes reach
 * the watch while `ledgerctl recover ledger` writes the rows back. A flag is written only while its row is still
 * gone, so a row the recovery put back between the watch's read and its write is never flagged after the
 * recovery cleared the flags of the rows it wrote. The real ledger writer and watch run on the in-memory tables.
 */

const firmId = 'firm_watch';

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'gls-tamper-watch-'));
  const signer = new LocalSigner(join(dir, 'signing-key.pem'));
  const objects = new FsObjectStore(join(dir, 'objects'));
  let afterCopyRead = (): void => undefined;
  const store = memoryStore({
    signer,
    signerFor: () => signer,
    clock: systemClock,
    // The watch reads the row and the copy at once; the hook runs once the copy is read, after the row was.
    objects: Object.assign(Object.create(objects) as FsObjectStore, {
      get: async (bucket: 'immutable', key: string) => {
        const copy = await objects.get(bucket, key);
        afterCopyRead();
        return copy;
      },
    }),
  } as Partial<Deps>);
  return { ...store, onCopyRead: (hook: () => void) => void (afterCopyRead = hook) };
}

async function lose(deps: Deps, key: { pk: string; sk: string }): Promise<void> {
  await deps.db.send(new DeleteCommand({ TableName: deps.tables.ledger, Key: key }));
}

const removal = (key: { pk: string; sk: string }) => ({ eventName: 'REMOVE', ...key });

describe('the tamper watch on a ledger without a head', () => {
  it('flags a removed row that is still gone, with no detection record to append to', async () => {
    const { deps } = setUp();
    await chainOf(deps, firmId, 3);
    await lose(deps, keys.ledgerHead(firmId));
    await lose(deps, keys.ledgerRecord(firmId, 2));

    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      expect(await judgeLedgerChange(deps, removal(keys.ledgerRecord(firmId, 2)))).toBe('flagged');
      expect(error).toHaveBeenCalledWith(
        TAMPERING_DETECTED_LOG,
        expect.objectContaining({ firmId, sequenceNumber: 2, detectionRecordId: null }),
      );
    } finally {
      error.mockRestore();
    }
    const { flags } = await standingTamperFlags(deps, firmId, 10);
    expect(flags).toEqual([
      expect.objectContaining({ sequenceNumber: 2, change: 'REMOVED', detectionRecordId: null }),
    ]);
  });

  it('does not flag a row put back between its read and the flag, as a recovery running beside it does', async () => {
    const { deps, item, put, onCopyRead } = setUp();
    await chainOf(deps, firmId, 3);
    const row = item('ledger', keys.ledgerRecord(firmId, 2))!;
    await lose(deps, keys.ledgerHead(firmId));
    await lose(deps, keys.ledgerRecord(firmId, 2));
    onCopyRead(() => put('ledger', row));

    expect(await judgeLedgerChange(deps, removal(keys.ledgerRecord(firmId, 2)))).toBe('already-flagged');
    expect((await standingTamperFlags(deps, firmId, 10)).flags).toEqual([]);
    expect(item('ledger', keys.ledgerRecord(firmId, 2))).toEqual(row);
  });
});
