import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { generateKeyPairSync, sign } from 'node:crypto';
import { newId } from '../../shared/ids.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import {
  canonicalJson,
  computeChainHash,
  computeRecordHash,
  signedMessage,
} from '../../shared/ledger/hashing.js';
import { RECORD_FIELDS, type LedgerRecord } from '../../shared/ledger/record.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { reconcileBackup } from '../../shared/services/integrity/backup-reconcile.js';
import { resolveSequence } from '../../shared/services/integrity/record-locator.js';
import { immutableRecordKey } from '../../shared/store/immutable-layout.js';
import { keys } from '../../shared/store/keys.js';
import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

const deps = stackDeps();
const table = deps.tables.ledger;

async function appendMany(firm: TestFirm, count: number, concurrency = 8): Promise<void> {
  for (let done = 0; done < count; done += concurrency) {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count - done) }, (_, i) =>
        appendRecord(deps, {
          firmId: firm.firmId,
          eventType: 'DOCUMENT_SUBMITTED',
          actor: { id: 'usr_x', name: 'Xavier', fcaRef: 'XAV00001' },
          documentHash: 'a'.repeat(64),
          documentMetadata: { documentReference: `DOC-${done + i}`, score: 0.5 + i / 100 },
        }),
      ),
    );
  }
}

async function row(
  firm: TestFirm,
  sequenceNumber: number,
): Promise<LedgerRecord & { pk: string; sk: string }> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: table, Key: keys.ledgerRecord(firm.firmId, sequenceNumber) }),
  );
  return Item as LedgerRecord & { pk: string; sk: string };
}

/** The record of a row, without its storage keys and index attributes (issue 14). */
function recordOfRow(row: LedgerRecord & { pk: string; sk: string }): LedgerRecord {
  return Object.fromEntries(
    RECORD_FIELDS.filter((field) => field in row).map((field) => [field, row[field]]),
  ) as unknown as LedgerRecord;
}

/** Writes a new object into the firm's immutable store, as Object Lock still allows (a new key). */
async function plantCopy(firmId: string, sequenceNumber: number, record: LedgerRecord): Promise<void> {
  const key = immutableRecordKey(firmId, sequenceNumber, record.id);
  await deps.objects.put(
    'immutable',
    key,
    new TextEncoder().encode(canonicalJson(record)),
    'application/json',
  );
}

async function verify(firm: TestFirm) {
  const { status, body } = await api('POST', '/v1/ledger/integrity/verify', { key: firm.key });
  expect(status).toBe(200);
  return body;
}

async function restore(firm: TestFirm, token: string, id: string) {
  const { status, body } = await api('POST', `/v1/ledger/integrity/records/${id}/restore`, {
    token,
    body: { confirm: true },
  });
  expect(status).toBe(200);
  return body;
}

function codesBySequence(result: {
  brokenRecords: { sequenceNumber: number; problems: { code: string }[] }[];
}) {
  return Object.fromEntries(
    result.brokenRecords.map((b) => [b.sequenceNumber, b.problems.map((p) => p.code).sort()]),
  );
}

async function waitForRun(firm: TestFirm, id: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { body } = await api('GET', `/v1/ledger/integrity/verifications/${id}`, { key: firm.key });
    if (body.verification.status === 'COMPLETED') return body;
    if (Date.now() > deadline)
      throw new Error(`Run ${id} did not complete: ${JSON.stringify(body.verification)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('tampering is detected, explained and repaired', () => {
  let firm: TestFirm;
  let admin: string;
  beforeEach(async () => {
    firm = await createFirm();
    admin = await tokenFor(firm.firmId, firm.admin.email);
    await appendMany(firm, 8);
    const clean = await verify(firm);
    expect(clean.result).toMatchObject({ complete: true, valid: true, recordsChecked: 8, brokenCount: 0 });
  });

  async function expectCleanAfterRepair(repairs: number) {
    const after = await verify(firm);
    expect(after.result).toMatchObject({ complete: true, valid: true, brokenRecords: [] });
    const repaired = await api('GET', '/v1/ledger/records?eventType=CHAIN_REPAIRED', { key: firm.key });
    expect(repaired.body.pagination.total).toBe(repairs);
    const status = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(status.body).toMatchObject({ healthy: true, countsMatch: true });
  }

  it('a changed field', async () => {
    const target = await row(firm, 3);
    await deps.db.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.ledgerRecord(firm.firmId, 3),
        UpdateExpression: 'SET documentMetadata.documentReference = :r',
        ExpressionAttributeValues: { ':r': 'DOC-FORGED' },
      }),
    );
    const detected = await verify(firm);
    expect(detected.verification.valid).toBe(false);
    expect(codesBySequence(detected.result)).toEqual({ 3: ['RECORD_HASH_MISMATCH'] });

    const { body: diff } = await api('GET', `/v1/ledger/integrity/records/${target.id}/discrepancy`, {
      key: firm.key,
    });
    expect(diff).toMatchObject({ recordId: target.id, sequenceNumber: 3 });
    expect(diff.diffs).toEqual([
      {
        field: 'documentMetadata',
        database: { documentReference: 'DOC-FORGED', score: expect.any(Number) },
        immutable: target.documentMetadata,
      },
    ]);

    const repaired = await restore(firm, admin, target.id);
    expect(repaired).toMatchObject({
      restored: true,
      action: 'OVERWRITTEN',
      sequenceNumber: 3,
      fieldsRestored: ['documentMetadata'],
    });
    const { body: evidence } = await api('GET', `/v1/ledger/records/${repaired.repairRecordId}`, {
      key: firm.key,
    });
    expect(evidence).toMatchObject({
      eventType: 'CHAIN_REPAIRED',
      actorId: firm.admin.id,
      documentMetadata: {
        restoredRecordId: target.id,
        sequenceNumber: 3,
        action: 'OVERWRITTEN',
        fieldsRestored: ['documentMetadata'],
      },
    });
    expect(await row(firm, 3)).toEqual(target);

    // Restoring an intact record is a no-op answer, not a second CHAIN_REPAIRED.
    expect(await restore(firm, admin, target.id)).toMatchObject({
      restored: false,
      action: 'NONE',
      repairRecordId: null,
    });
    await expectCleanAfterRepair(1);
  });

  it('a deleted record', async () => {
    const target = await row(firm, 5);
    await deps.db.send(new DeleteCommand({ TableName: table, Key: keys.ledgerRecord(firm.firmId, 5) }));
    const detected = await verify(firm);
    expect(codesBySequence(detected.result)).toEqual({ 5: ['MISSING_RECORD'] });
    // The backup status counts from the last background reconciliation (issue 14): run it, as the scheduled
    // backup-reconcile worker would.
    await reconcileBackup(deps, firm.firmId);
    expect((await api('GET', '/v1/firm/me/backup-status', { key: firm.key })).body).toMatchObject({
      healthy: false,
      countsMatch: false,
      // 8 records and two CHAIN_VERIFIED, one row deleted.
      database: { count: 9 },
      immutableStorage: { count: 10 },
      reconciledAt: expect.any(String),
      reconciliation: { headSequence: 10, missingRowCount: 1, missingRows: [5], missingCopyCount: 0 },
    });

    const { status, body: missing } = await api('GET', '/v1/ledger/integrity/missing/5', { key: firm.key });
    expect(status).toBe(200);
    expect(missing).toMatchObject({ recordId: target.id, sequenceNumber: 5, database: null });
    expect(missing.immutable).toEqual(recordOfRow(target));
    expect(missing.diffs.length).toBe(16);
    expect(
      (await api('GET', `/v1/ledger/integrity/records/${target.id}/discrepancy`, { key: firm.key })).body
        .database,
    ).toBeNull();

    expect(await restore(firm, admin, target.id)).toMatchObject({
      restored: true,
      action: 'REINSERTED',
      sequenceNumber: 5,
    });
    expect(await row(firm, 5)).toEqual(target);
    expect((await api('GET', '/v1/ledger/integrity/missing/5', { key: firm.key })).status).toBe(404);
    await expectCleanAfterRepair(1);
  });

  it('two records reordered', async () => {
    const four = await row(firm, 4);
    const six = await row(firm, 6);
    await deps.db.send(new PutCommand({ TableName: table, Item: { ...six, sk: four.sk } }));
    await deps.db.send(new PutCommand({ TableName: table, Item: { ...four, sk: six.sk } }));
    const detected = await verify(firm);
    const codes = codesBySequence(detected.result);
    expect(codes[4]).toEqual(expect.arrayContaining(['BROKEN_LINK', 'SEQUENCE_MISMATCH']));
    expect(codes[6]).toEqual(expect.arrayContaining(['BROKEN_LINK', 'SEQUENCE_MISMATCH']));

    const { body: diff } = await api('GET', `/v1/ledger/integrity/records/${four.id}/discrepancy`, {
      key: firm.key,
    });
    expect(diff.sequenceNumber).toBe(4);
    expect(diff.database.id).toBe(six.id);
    expect(diff.diffs.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(['id', 'sequenceNumber', 'chainHash']),
    );

    await restore(firm, admin, four.id);
    await restore(firm, admin, six.id);
    expect(await row(firm, 4)).toEqual(four);
    expect(await row(firm, 6)).toEqual(six);
    await expectCleanAfterRepair(2);
  });

  it('a forged record with a valid-looking hash but no valid signature', async () => {
    const original = await row(firm, 2);
    const forged = { ...original, actorName: 'Mallory', id: 'rec_01FORGEDFORGEDFORGEDFORGE0' };
    forged.recordHash = computeRecordHash(forged);
    forged.chainHash = computeChainHash(forged.previousHash, forged.recordHash);
    await deps.db.send(new PutCommand({ TableName: table, Item: forged }));

    const detected = await verify(firm);
    expect(codesBySequence(detected.result)).toEqual({ 2: ['BAD_SIGNATURE'], 3: ['BROKEN_LINK'] });
    // The forged id exists only in the database: it resolves to the position of its row.
    const { body: diff } = await api('GET', `/v1/ledger/integrity/records/${forged.id}/discrepancy`, {
      key: firm.key,
    });
    expect(diff).toMatchObject({
      sequenceNumber: 2,
      database: { id: forged.id },
      immutable: { id: original.id },
    });

    expect(await restore(firm, admin, forged.id)).toMatchObject({
      restored: true,
      recordId: original.id,
      sequenceNumber: 2,
    });
    expect(await row(firm, 2)).toEqual(original);
    await expectCleanAfterRepair(1);
  });

  it('attribute types no record can have (a set, a string sequence number, an out-of-range number)', async () => {
    const two = await row(firm, 2);
    const four = await row(firm, 4);
    const sixBefore = await row(firm, 6);
    // Verification reads rows with its own converter; types it does not expect must be findings, not a crash.
    await deps.db.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.ledgerRecord(firm.firmId, 2),
        UpdateExpression: 'SET documentMetadata.score = :s',
        ExpressionAttributeValues: { ':s': new Set(['0.5']) },
      }),
    );
    await deps.db.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.ledgerRecord(firm.firmId, 4),
        UpdateExpression: 'SET sequenceNumber = :s',
        ExpressionAttributeValues: { ':s': '4' },
      }),
    );
    // The DocumentClient refuses to write such a number; an attacker uses the low-level API.
    const six = keys.ledgerRecord(firm.firmId, 6);
    await deps.db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: six.pk }, sk: { S: six.sk } },
        UpdateExpression: 'SET documentMetadata.score = :n',
        ExpressionAttributeValues: { ':n': { N: '1e30' } },
      }),
    );
    const detected = await verify(firm);
    expect(codesBySequence(detected.result)).toEqual({
      2: ['RECORD_HASH_MISMATCH'],
      4: ['RECORD_HASH_MISMATCH', 'SEQUENCE_MISMATCH'],
      6: ['RECORD_HASH_MISMATCH'],
    });
    await restore(firm, admin, two.id);
    await restore(firm, admin, four.id);
    expect(await restore(firm, admin, sixBefore.id)).toMatchObject({ restored: true, sequenceNumber: 6 });
    expect(await row(firm, 2)).toEqual(two);
    expect(await row(firm, 4)).toEqual(four);
    expect(await row(firm, 6)).toEqual(sixBefore);
    await expectCleanAfterRepair(3);
  });

  it('a lone-surrogate actorName and a documentMetadata number of 1e30: reported, shown and restored', async () => {
    const three = await row(firm, 3);
    const six = await row(firm, 6);
    const at = (sequence: number) => {
      const key = keys.ledgerRecord(firm.firmId, sequence);
      return { pk: { S: key.pk }, sk: { S: key.sk } };
    };
    await deps.db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: at(3),
        UpdateExpression: 'SET actorName = :n',
        ExpressionAttributeValues: { ':n': { S: 'T\ud800' } },
      }),
    );
    await deps.db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: at(6),
        UpdateExpression: 'SET documentMetadata.injected = :n',
        ExpressionAttributeValues: { ':n': { N: '1e30' } },
      }),
    );
    const detected = await verify(firm);
    expect(codesBySequence(detected.result)).toEqual({
      3: ['RECORD_HASH_MISMATCH'],
      6: ['RECORD_HASH_MISMATCH'],
    });

    const shown = await api('GET', `/v1/ledger/records/${three.id}`, { key: firm.key });
    expect([shown.status, shown.body.actorName]).toEqual([200, 'T\ud800']);
    const big = await api('GET', `/v1/ledger/records/${six.id}`, { key: firm.key });
    expect([big.status, big.body.documentMetadata.injected]).toEqual([200, 1e30]);
    expect((await api('GET', '/v1/ledger/records?pageSize=100', { key: firm.key })).status).toBe(200);
    expect((await api('GET', '/v1/ledger/records?actorId=usr_x', { key: firm.key })).status).toBe(200);
    const backup = await api('GET', '/v1/firm/me/backup-status', { key: firm.key });
    expect(backup.status).toBe(200);
    for (const check of backup.body.spotChecks as { sequenceNumber: number; match: boolean }[])
      expect(check.match).toBe(check.sequenceNumber !== 3 && check.sequenceNumber !== 6);

    const actorDiff = await api('GET', `/v1/ledger/integrity/records/${three.id}/discrepancy`, {
      key: firm.key,
    });
    expect(actorDiff.status).toBe(200);
    expect(actorDiff.body.diffs).toEqual([{ field: 'actorName', database: 'T\ud800', immutable: 'Xavier' }]);
    const numberDiff = await api('GET', `/v1/ledger/integrity/records/${six.id}/discrepancy`, {
      key: firm.key,
    });
    expect(numberDiff.status).toBe(200);
    expect(numberDiff.body.diffs).toEqual([
      {
        field: 'documentMetadata',
        database: { ...six.documentMetadata, injected: 1e30 },
        immutable: six.documentMetadata,
      },
    ]);

    expect(await restore(firm, admin, three.id)).toMatchObject({
      restored: true,
      action: 'OVERWRITTEN',
      fieldsRestored: ['actorName'],
    });
    expect(await restore(firm, admin, six.id)).toMatchObject({
      restored: true,
      action: 'OVERWRITTEN',
      fieldsRestored: ['documentMetadata'],
    });
    expect(await row(firm, 3)).toEqual(three);
    expect(await row(firm, 6)).toEqual(six);
    await expectCleanAfterRepair(2);
  });

  it('restore refuses an immutable copy it cannot trust, and writes nothing', async () => {
    // Object Lock forbids overwrites, not new keys: an attacker plants copies at positions beyond the head.
    const other = await createFirm();
    await appendMany(other, 1);
    const foreign = recordOfRow(await row(other, 1));
    await plantCopy(firm.firmId, 40, foreign);

    const own = recordOfRow(await row(firm, 3));
    const resigned = { ...own, id: newId('record'), sequenceNumber: 41, actorName: 'Mallory' };
    resigned.recordHash = computeRecordHash(resigned);
    resigned.chainHash = computeChainHash(resigned.previousHash, resigned.recordHash);
    await plantCopy(firm.firmId, 41, resigned);

    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const unknownKey = { ...resigned, id: newId('record'), sequenceNumber: 42 };
    unknownKey.recordHash = computeRecordHash(unknownKey);
    unknownKey.chainHash = computeChainHash(unknownKey.previousHash, unknownKey.recordHash);
    unknownKey.signature = sign('sha256', signedMessage(unknownKey.chainHash), privateKey).toString('base64');
    unknownKey.publicKey = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
    await plantCopy(firm.firmId, 42, unknownKey);

    const cases: [string, RegExp][] = [
      [foreign.id, /another firm.*sequence number is not 40/],
      [resigned.id, /bad signature/],
      [unknownKey.id, /key the service has not published/],
    ];
    for (const [id, reason] of cases) {
      const shown = await api('GET', `/v1/ledger/integrity/records/${id}/discrepancy`, { key: firm.key });
      expect([shown.status, shown.body.database]).toEqual([200, null]);
      const refused = await api('POST', `/v1/ledger/integrity/records/${id}/restore`, {
        token: admin,
        body: { confirm: true },
      });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'CONFLICT']);
      expect(refused.body.error.message).toMatch(reason);
    }
    for (const sequence of [40, 41, 42]) expect(await row(firm, sequence)).toBeUndefined();
    const repaired = await api('GET', '/v1/ledger/records?eventType=CHAIN_REPAIRED', { key: firm.key });
    expect(repaired.body.pagination.total).toBe(0);
  });

  it('two concurrent restores of the same damage write one repair', async () => {
    const target = await row(firm, 7);
    await deps.db.send(new DeleteCommand({ TableName: table, Key: keys.ledgerRecord(firm.firmId, 7) }));
    const results = await Promise.all([restore(firm, admin, target.id), restore(firm, admin, target.id)]);
    expect(results.filter((r) => r.restored)).toHaveLength(1);
    await expectCleanAfterRepair(1);
  });
});

describe('restore rules', () => {
  let firm: TestFirm;
  let recordId: string;
  beforeAll(async () => {
    firm = await createFirm();
    await appendMany(firm, 2);
    recordId = (await api('GET', '/v1/ledger/records', { key: firm.key })).body.data[0].id;
  });

  it('requires confirm: true', async () => {
    const token = await tokenFor(firm.firmId, firm.admin.email);
    for (const body of [undefined, {}, { confirm: false }, { confirm: 'true' }]) {
      const response = await api('POST', `/v1/ledger/integrity/records/${recordId}/restore`, { token, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('is refused to API keys and reviewers, allowed to lead reviewers', async () => {
    const byKey = await api('POST', `/v1/ledger/integrity/records/${recordId}/restore`, {
      key: firm.key,
      body: { confirm: true },
    });
    expect([byKey.status, byKey.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `rev-${Date.now()}@firm.test`);
    const byReviewer = await api('POST', `/v1/ledger/integrity/records/${recordId}/restore`, {
      token: await tokenFor(firm.firmId, reviewer.email),
      body: { confirm: true },
    });
    expect(byReviewer.status).toBe(403);
    const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', `lead-${Date.now()}@firm.test`);
    const byLead = await api('POST', `/v1/ledger/integrity/records/${recordId}/restore`, {
      token: await tokenFor(firm.firmId, lead.email),
      body: { confirm: true },
    });
    expect(byLead.status).toBe(200);
    expect(byLead.body.restored).toBe(false);
  });

  it("answers 404 for unknown ids and another firm's records", async () => {
    const other = await createFirm();
    const otherAdmin = await tokenFor(other.firmId, other.admin.email);
    expect(
      (await api('GET', `/v1/ledger/integrity/records/${recordId}/discrepancy`, { key: other.key })).status,
    ).toBe(404);
    const restoreForeign = await api('POST', `/v1/ledger/integrity/records/${recordId}/restore`, {
      token: otherAdmin,
      body: { confirm: true },
    });
    expect(restoreForeign.status).toBe(404);
    expect(
      (await api('GET', '/v1/ledger/integrity/records/rec_nope/discrepancy', { key: firm.key })).status,
    ).toBe(404);
    expect((await api('GET', '/v1/ledger/integrity/missing/1', { key: other.key })).status).toBe(404);
    expect((await api('GET', '/v1/ledger/integrity/missing/999', { key: firm.key })).status).toBe(404);
    expect((await api('GET', '/v1/ledger/integrity/missing/1', { key: firm.key })).status).toBe(404); // present
    expect((await api('GET', '/v1/ledger/integrity/missing/0', { key: firm.key })).status).toBe(400);
    expect((await api('GET', '/v1/ledger/integrity/missing/abc', { key: firm.key })).status).toBe(400);
  });
});

describe('verification of longer chains', () => {
  it('continues in the background beyond the inline limit, then verifies incrementally with a full run behind it', async () => {
    const firm = await createFirm();
    await appendMany(firm, 150, 10);

    const first = await verify(firm);
    expect(first.verification).toMatchObject({
      mode: 'full',
      status: 'RUNNING',
      fromSequence: 1,
      toSequence: 150,
    });
    expect(first.result.complete).toBe(false);
    expect(first.result.checkedThrough).toBeGreaterThanOrEqual(60);
    const done = await waitForRun(firm, first.verification.id);
    expect(done.result).toMatchObject({ complete: true, valid: true, recordsChecked: 150 });
    const status = await api('GET', '/v1/ledger/integrity', { key: firm.key });
    expect(status.body).toMatchObject({
      firmId: firm.firmId,
      totalRecords: 151,
      lastVerification: { id: first.verification.id, valid: true },
    });

    // New records since the checkpoint are verified inline; the full run follows in the background.
    await appendMany(firm, 5);
    const tamperedSequence = 10;
    await deps.db.send(
      new UpdateCommand({
        TableName: table,
        Key: keys.ledgerRecord(firm.firmId, tamperedSequence),
        UpdateExpression: 'SET actorName = :n',
        ExpressionAttributeValues: { ':n': 'Mallory' },
      }),
    );
    const second = await verify(firm);
    expect(second.verification).toMatchObject({
      mode: 'incremental',
      status: 'COMPLETED',
      fromSequence: 151,
      toSequence: 156,
      valid: true,
    });
    expect(second.verification.backgroundVerificationId).toEqual(expect.any(String));
    const full = await waitForRun(firm, second.verification.backgroundVerificationId);
    expect(full.verification).toMatchObject({ mode: 'full', trigger: 'background', valid: false });
    expect(codesBySequence(full.result)).toEqual({ [tamperedSequence]: ['RECORD_HASH_MISMATCH'] });
    const chainVerified = await api('GET', '/v1/ledger/records?eventType=CHAIN_VERIFIED', { key: firm.key });
    expect(chainVerified.body.pagination.total).toBe(3);
    expect(chainVerified.body.data.map((r: LedgerRecord) => r.documentMetadata.valid)).toContain(false);
  });
});

describe('resolving a record id', () => {
  it('lists a bounded part of the immutable store, for a made-up id as for a deleted record', async () => {
    const firm = await createFirm();
    await appendMany(firm, 220, 10);
    let listed = 0;
    const objects = Object.assign(Object.create(deps.objects) as Deps['objects'], {
      async *list(bucket: Parameters<Deps['objects']['list']>[0], prefix: string) {
        for await (const key of deps.objects.list(bucket, prefix)) {
          listed += 1;
          yield key;
        }
      },
    });
    const counted: Deps = { ...deps, objects };
    const resolve = async (id: string) => {
      listed = 0;
      return { sequenceNumber: await resolveSequence(counted, firm.firmId, id), listed };
    };

    // A made-up id: not an id at all, or one from a time no record of the firm has.
    expect(await resolve('rec_nope')).toEqual({ sequenceNumber: null, listed: 0 });
    const future = await resolve('rec_7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(future.sequenceNumber).toBeNull();
    expect(future.listed).toBeLessThan(120);
    for (const id of ['rec_nope', 'rec_7ZZZZZZZZZZZZZZZZZZZZZZZZZ', newId('record')])
      expect(
        (await api('GET', `/v1/ledger/integrity/records/${id}/discrepancy`, { key: firm.key })).status,
      ).toBe(404);

    // A deleted record is still found by its id, around the time its id names.
    const target = await row(firm, 150);
    await deps.db.send(new DeleteCommand({ TableName: table, Key: keys.ledgerRecord(firm.firmId, 150) }));
    const found = await resolve(target.id);
    expect(found.sequenceNumber).toBe(150);
    expect(found.listed).toBeLessThan(120);
    const diff = await api('GET', `/v1/ledger/integrity/records/${target.id}/discrepancy`, { key: firm.key });
    expect(diff.body).toMatchObject({ sequenceNumber: 150, database: null, immutable: { id: target.id } });
  });
});
