import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { keys } from '../../shared/store/keys.js';
import { LIST_ATTRIBUTES } from '../../shared/store/list-attributes.js';
import { LEDGER_RECORD_INDEXES } from '../../shared/store/tables.js';
import { ledgerctl } from '../support/local-stack.js';
import { jobItem, putJobOnly } from './governance-seed.js';
import { api, createFirm, stack, stackDeps, type TestFirm } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const RECORD_INDEX_ATTRIBUTES = [
  ...new Set(Object.values(LEDGER_RECORD_INDEXES).flatMap((i) => [i.partitionKey, i.sortKey])),
];

/** Takes the index attributes off an item: how every item written before issue 14 looks. */
async function makeOld(
  table: 'main' | 'ledger',
  key: { pk: string; sk: string },
  attributes: readonly string[],
) {
  const deps = stackDeps();
  await deps.db.send(
    new UpdateCommand({
      TableName: deps.tables[table],
      Key: key,
      UpdateExpression: `REMOVE ${attributes.map((_, i) => `#a${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(attributes.map((name, i) => [`#a${i}`, name])),
    }),
  );
}

const seqs = (body: { data: LedgerRecord[] }) => body.data.map((r) => r.sequenceNumber);

describe('ledgerctl backfill indexes (issue 14, part 5)', () => {
  let firm: TestFirm;
  let records: LedgerRecord[];
  const jobIds: string[] = [];

  beforeAll(async () => {
    firm = await createFirm();
    const deps = stackDeps();
    records = [];
    for (let i = 0; i < 5; i++)
      records.push(
        await appendRecord(deps, {
          firmId: firm.firmId,
          eventType: i % 2 === 0 ? 'DOCUMENT_SUBMITTED' : 'INCIDENT_LOGGED',
          actor: { id: `usr_backfill_${i % 2}`, name: 'Bea Backfill', fcaRef: null },
          documentHash: sha(`backfill-${i}`),
          documentMetadata: { documentReference: `BF-${i}` },
        }),
      );
    for (const record of records)
      await makeOld('ledger', keys.ledgerRecord(firm.firmId, record.sequenceNumber), RECORD_INDEX_ATTRIBUTES);
    for (let i = 0; i < 3; i++) {
      const job = jobItem(firm.firmId, { status: 'QUEUED', outcome: null, completedAt: null });
      await putJobOnly(job);
      await makeOld('main', keys.job(firm.firmId, job.id), LIST_ATTRIBUTES);
      jobIds.push(job.id);
    }
  });

  it('finds nothing by filter or list before, everything after; resumable and idempotent', async () => {
    const byType = '/v1/ledger/records?eventType=INCIDENT_LOGGED';
    const byHash = `/v1/ledger/records?documentHash=${sha('backfill-2')}`;
    const byReference = '/v1/ledger/records?documentReference=BF-4&startDate=2000-01-01T00:00:00Z';
    const jobs = '/v1/review/jobs?status=QUEUED';
    expect(seqs((await api('GET', byType, { key: firm.key })).body)).toEqual([]);
    expect((await api('GET', jobs, { key: firm.key })).body.data).toEqual([]);

    // A bounded run stops with a position; the next runs continue from it until the end.
    const first = await ledgerctl(stack.dataDir, [
      'backfill',
      'indexes',
      '--firm',
      firm.firmId,
      '--max-items',
      '3',
    ]);
    expect(first.code).toBe(0);
    const firstRun = first.json as { scanned: number; updated: number; next: string | null };
    expect(firstRun.scanned).toBe(3);
    expect(firstRun.next).toEqual(expect.any(String));
    let next = firstRun.next;
    let updated = firstRun.updated;
    while (next !== null) {
      const run = await ledgerctl(stack.dataDir, [
        'backfill',
        'indexes',
        '--firm',
        firm.firmId,
        '--position',
        next,
      ]);
      expect(run.code).toBe(0);
      const result = run.json as { updated: number; next: string | null };
      updated += result.updated;
      next = result.next;
    }
    expect(updated).toBe(records.length + jobIds.length);

    expect(seqs((await api('GET', byType, { key: firm.key })).body)).toEqual([4, 2]);
    expect((await api('GET', byHash, { key: firm.key })).body.data).toEqual([records[2]]);
    expect((await api('GET', byReference, { key: firm.key })).body.data).toEqual([records[4]]);
    const listed = await api('GET', jobs, { key: firm.key });
    expect(listed.body.data.map((j: { id: string }) => j.id).sort()).toEqual([...jobIds].sort());

    // The rows are the records they were: same hashes, same signatures, same answer.
    for (const record of records)
      expect((await api('GET', `/v1/ledger/records/${record.id}`, { key: firm.key })).body).toEqual(record);

    // Again: nothing left to do.
    const again = await ledgerctl(stack.dataDir, ['backfill', 'indexes', '--firm', firm.firmId]);
    expect(again.json).toMatchObject({ updated: 0, next: null });
  });

  it('refuses a position it did not print', async () => {
    const bad = await ledgerctl(stack.dataDir, ['backfill', 'indexes', '--position', 'nonsense']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--position/);
  });
});
