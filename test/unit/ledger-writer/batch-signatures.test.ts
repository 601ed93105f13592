import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import { commitInBatch, type Candidate } from '../../../shared/ledger-writer/batch-commit.js';
import { systemClock } from '../../../shared/ports/clock.js';
import type { Deps } from '../../../shared/runtime/deps.js';

const signer = new LocalSigner(join(mkdtempSync(join(tmpdir(), 'gls-batch-')), 'key.pem'));

/** Deps whose table stores no key history (the genesis key: the signer's) and commits every transaction. */
const deps = {
  db: {
    send: async (command: { constructor: { name: string } }) =>
      command.constructor.name === 'QueryCommand' ? { Items: [] } : {},
  },
  tables: { main: 'main', ledger: 'ledger' },
  signer,
  signerFor: () => signer,
  clock: systemClock,
} as unknown as Deps;

const append = (n: number): Candidate => ({
  recordId: `rec_0000000000000000000000000${n}`,
  firmId: 'firm_a',
  eventType: 'INCIDENT_LOGGED',
  actor: { id: 'u', name: 'U', fcaRef: null },
  documentHash: 'a'.repeat(64),
  documentMetadata: {},
  reviewJobId: null,
  requestedAt: new Date().toISOString(),
  extras: [],
  timestampToken: '@@ts',
  remote: true,
});

describe('commitInBatch', () => {
  it("drops the committed records' signatures from the lane's map, keeping the others", async () => {
    const signatures = new Map([['kept-for-a-later-batch', 'sig']]);
    const result = await commitInBatch(
      deps,
      { sequenceNumber: 0, chainHash: null, timestamp: null },
      [append(1), append(2)],
      signatures,
    );
    expect(result.committed).toHaveLength(2);
    expect([...signatures.keys()]).toEqual(['kept-for-a-later-batch']);
  });
});
