import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { canonicalJson } from '../../shared/ledger/hashing.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { immutableRecordKey } from '../../shared/store/immutable-layout.js';
import { keys } from '../../shared/store/keys.js';
import { ledgerctl } from '../support/local-stack.js';
import { api, createFirm, stack, stackDeps, type TestFirm } from './helpers.js';

/**
 * `ledgerctl recover ledger` (issue 32, fault 6): a firm's ledger items deleted straight in DynamoDB are rebuilt
 * from the immutable copies alone, byte for byte, with their list indexes and head; a tampered or missing copy
 * is reported and the chain is not rebuilt across it; an interrupted run resumes; a non-empty ledger is refused.
 */

const deps = stackDeps();

interface Recovery {
  status: string;
  recovered: number;
  resumedFrom: number;
  head: { sequenceNumber: number; chainHash: string | null } | null;
  copies: number;
  gaps: { from: number; to: number }[];
  invalidCopies: { key: string; sequenceNumber: number | null; problems: string[] }[];
  notRecovered: { fromSequence: number; toSequence: number; copies: number } | null;
}

async function recover(firm: TestFirm, ...extra: string[]) {
  return ledgerctl(stack.dataDir, ['recover', 'ledger', '--firm', firm.firmId, ...extra]);
}

async function recovered(firm: TestFirm, ...extra: string[]): Promise<Recovery> {
  const result = await recover(firm, ...extra);
  if (result.code !== 0) throw new Error(`ledgerctl recover failed: ${result.stderr}`);
  return result.json as Recovery;
}

/** Writes `count` records through the API: incidents (INCIDENT_LOGGED), every third one resolved. */
async function writeRecords(firm: TestFirm, count: number): Promise<void> {
  let written = 0;
  for (let i = 0; written < count; i++) {
    const created = await api('POST', '/v1/incidents', {
      key: firm.key,
      body: {
        title: `Incident ${i}`,
        description: `Drafting fault ${i}`,
        severity: 'LOW',
        category: 'AI_MODEL',
      },
    });
    expect(created.status).toBe(201);
    written++;
    if (i % 3 === 2 && written < count) {
      const resolved = await api('POST', `/v1/incidents/${created.body.id}`, {
        key: firm.key,
        body: { status: 'RESOLVED', rootCause: 'Stale retrieval index' },
      });
      expect(resolved.status).toBe(200);
      written++;
    }
  }
}

/** Every record of the firm through the list endpoint, oldest first. */
async function allRecords(firm: TestFirm, query = ''): Promise<LedgerRecord[]> {
  const { status, body } = await api('GET', `/v1/ledger/records?order=asc&pageSize=100${query}`, {
    key: firm.key,
  });
  expect(status).toBe(200);
  return body.data as LedgerRecord[];
}

/** Deletes every item of the firm's ledger partition (records, head, outbox, lease), as the fault does. */
async function loseLedger(firm: TestFirm): Promise<number> {
  let deleted = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new QueryCommand({
        TableName: deps.tables.ledger,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.firmPk(firm.firmId) },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: startKey,
      }),
    );
    const items = page.Items ?? [];
    for (let i = 0; i < items.length; i += 25)
      await deps.db.send(
        new BatchWriteCommand({
          RequestItems: {
            [deps.tables.ledger]: items.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } })),
          },
        }),
      );
    deleted += items.length;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return deleted;
}

/** The file behind a record's immutable copy in the local object store. */
function copyFile(record: LedgerRecord): string {
  return join(
    stack.dataDir,
    'objects',
    'immutable',
    'data',
    immutableRecordKey(record.firmId, record.sequenceNumber, record.id),
  );
}

async function verify(firm: TestFirm) {
  const { status, body } = await api('POST', '/v1/ledger/integrity/verify', { key: firm.key });
  expect(status).toBe(200);
  return body.result;
}

describe('ledgerctl recover ledger', () => {
  describe('a lost ledger rebuilt from its copies', () => {
    let firm: TestFirm;
    let before: LedgerRecord[];
    let resolvedBefore: LedgerRecord[];

    beforeAll(async () => {
      firm = await createFirm();
      await writeRecords(firm, 14);
      before = await allRecords(firm);
      resolvedBefore = await allRecords(firm, '&eventType=INCIDENT_RESOLVED');
      expect(before).toHaveLength(14);
      expect(resolvedBefore.length).toBeGreaterThan(0);
      expect(await loseLedger(firm)).toBeGreaterThanOrEqual(15);
    });

    it('finds the ledger gone, then rebuilds every record byte for byte with head, indexes and counts', async () => {
      // A lost ledger is reported, never shown as an empty one (the tamper watch's lost-head check, §6c).
      const lost = await api('GET', '/v1/ledger/records?order=asc&pageSize=100', { key: firm.key });
      expect(lost.status).toBe(409);
      expect((lost.body.error as { code: string }).code).toBe('CONFLICT');
      const result = await recovered(firm);
      expect(result).toMatchObject({
        status: 'complete',
        recovered: 14,
        resumedFrom: 0,
        head: { sequenceNumber: 14, chainHash: before[13]!.chainHash },
        copies: 14,
        gaps: [],
        invalidCopies: [],
        notRecovered: null,
      });

      const after = await allRecords(firm);
      expect(after.map((r) => canonicalJson(r))).toEqual(before.map((r) => canonicalJson(r)));
      for (const record of after) expect(canonicalJson(record)).toBe(readFileSync(copyFile(record), 'utf8'));
      const one = await api('GET', `/v1/ledger/records/${before[5]!.id}`, { key: firm.key });
      expect(canonicalJson(one.body)).toBe(canonicalJson(before[5]));

      // The list indexes: filters answer what they answered before the loss.
      const resolved = await allRecords(firm, '&eventType=INCIDENT_RESOLVED');
      expect(resolved.map((r) => r.id)).toEqual(resolvedBefore.map((r) => r.id));
      const byActor = await allRecords(firm, `&actorId=${encodeURIComponent(before[0]!.actorId)}`);
      expect(byActor).toHaveLength(14);
      const desc = await api('GET', '/v1/ledger/records?pageSize=5', { key: firm.key });
      expect(desc.body.pagination).toMatchObject({ total: 14, totalPages: 3 });

      // Counts derived from records: the head (stats) and the backup status, reconciled by the recovery.
      const stats = await api('GET', '/v1/firm/me/stats', { key: firm.key });
      expect(stats.body.recordCount).toBe(14);
      const backup = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
      expect(backup.body).toMatchObject({
        healthy: true,
        database: { count: 14 },
        immutableStorage: { count: 14 },
        reconciliation: { headSequence: 14, missingRowCount: 0, missingCopyCount: 0 },
      });

      expect(await verify(firm)).toMatchObject({
        complete: true,
        valid: true,
        recordsChecked: 14,
        brokenCount: 0,
      });
    });

    it('lets the firm append after the recovered head, and refuses to run over a non-empty ledger', async () => {
      // The verification above appended CHAIN_VERIFIED at 15; the API's next record follows it.
      await writeRecords(firm, 1);
      const records = await allRecords(firm);
      expect(records.map((r) => r.eventType).slice(14)).toEqual(['CHAIN_VERIFIED', 'INCIDENT_LOGGED']);
      expect(records[14]!.previousHash).toBe(before[13]!.chainHash);

      const refused = await recover(firm);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/not empty.*--force/);

      // --force replaces rows with their verified copies; what is there already is the same, so nothing changes.
      const forced = await recovered(firm, '--force');
      expect(forced).toMatchObject({ status: 'complete', recovered: 16, head: { sequenceNumber: 16 } });
      expect((await allRecords(firm)).map((r) => canonicalJson(r))).toEqual(
        records.map((r) => canonicalJson(r)),
      );
      expect(await verify(firm)).toMatchObject({ valid: true, recordsChecked: 16 });
    });
  });

  it('resumes an interrupted run from its checkpoint', async () => {
    const firm = await createFirm();
    await writeRecords(firm, 9);
    const before = await allRecords(firm);
    await loseLedger(firm);

    // A bounded run leaves what a crash leaves: rows written up to its checkpoint, no head yet.
    const first = await recovered(firm, '--max-records', '4');
    expect(first).toMatchObject({ status: 'paused', recovered: 4, head: null });
    const second = await recovered(firm);
    expect(second).toMatchObject({
      status: 'complete',
      resumedFrom: 4,
      recovered: 5,
      head: { sequenceNumber: 9 },
    });
    expect((await allRecords(firm)).map((r) => canonicalJson(r))).toEqual(
      before.map((r) => canonicalJson(r)),
    );
    expect(await verify(firm)).toMatchObject({ valid: true, recordsChecked: 9 });
  });

  it('reports a tampered copy and a missing one, never rebuilds across them, and continues once they are back', async () => {
    const firm = await createFirm();
    await writeRecords(firm, 10);
    const before = await allRecords(firm);
    await loseLedger(firm);

    const tampered = copyFile(before[3]!);
    const original = readFileSync(tampered, 'utf8');
    chmodSync(tampered, 0o644);
    writeFileSync(tampered, original.replace(before[3]!.actorName, 'Mallory'));
    const missing = copyFile(before[6]!);
    const missingBytes = readFileSync(missing, 'utf8');
    rmSync(missing, { force: true });

    const result = await recovered(firm);
    expect(result).toMatchObject({
      status: 'stopped',
      recovered: 3,
      head: { sequenceNumber: 3, chainHash: before[2]!.chainHash },
      copies: 9,
      gaps: [{ from: 7, to: 7 }],
      notRecovered: { fromSequence: 4, toSequence: 10, copies: 6 },
    });
    expect(result.invalidCopies).toEqual([
      {
        key: immutableRecordKey(firm.firmId, 4, before[3]!.id),
        sequenceNumber: 4,
        problems: expect.arrayContaining(['record hash mismatch']),
      },
    ]);
    // The head names only records that exist. (Nothing may append meanwhile, or the positions after the head
    // are taken and the copies beyond remain evidence only: the run can then not continue.)
    expect((await allRecords(firm)).map((r) => r.sequenceNumber)).toEqual([1, 2, 3]);
    expect(canonicalJson((await allRecords(firm))[2])).toBe(canonicalJson(before[2]));

    // The true copy is put back (e.g. from the replica bucket): the run continues, to the gap.
    writeFileSync(tampered, original);
    const next = await recovered(firm);
    expect(next).toMatchObject({
      status: 'stopped',
      resumedFrom: 3,
      recovered: 3,
      head: { sequenceNumber: 6 },
      invalidCopies: [],
      notRecovered: { fromSequence: 7, toSequence: 10, copies: 3 },
    });

    await deps.objects.put(
      'immutable',
      immutableRecordKey(firm.firmId, 7, before[6]!.id),
      new TextEncoder().encode(missingBytes),
      'application/json',
    );
    const last = await recovered(firm);
    expect(last).toMatchObject({
      status: 'complete',
      resumedFrom: 6,
      recovered: 4,
      head: { sequenceNumber: 10 },
    });
    expect((await allRecords(firm)).map((r) => canonicalJson(r))).toEqual(
      before.map((r) => canonicalJson(r)),
    );
    expect(await verify(firm)).toMatchObject({ valid: true, recordsChecked: 10 });
  });
});
