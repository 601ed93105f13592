import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { canonicalJson } from '../../shared/ledger/hashing.js';
import { keyProblemAt, type SigningKeyHistory } from '../../shared/ledger/key-history.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { checkRecord } from '../../shared/ledger/verify.js';
import type { ObjectStore } from '../../shared/ports/object-store.js';
import { immutableRecordKey } from '../../shared/store/immutable-layout.js';
import { keys } from '../../shared/store/keys.js';
import { outboxShard } from '../../shared/store/ledger-outbox-store.js';
import { queryRecordRange } from '../../shared/store/ledger-store.js';
import { api, createFirm, stackDeps, type TestFirm } from './helpers.js';

const actor = { id: 'usr_test', name: 'Tess Tester', fcaRef: null };

function appendOne(firm: TestFirm, deps = stackDeps(), n = 0) {
  return appendRecord(deps, {
    firmId: firm.firmId,
    eventType: 'GENERATION_RECORDED',
    actor,
    documentMetadata: { n },
  });
}

async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('Timed out waiting');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('ledger append', () => {
  it('50 concurrent appends to one firm: sequence 1..50, no loss, no duplicate, no gap, a valid chain', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    // 50 independent writers, like 50 Lambda instances: nothing orders them but DynamoDB's conditions.
    const appended = await Promise.all(Array.from({ length: 50 }, (_, i) => appendOne(firm, stackDeps(), i)));

    expect(new Set(appended.map((r) => r.sequenceNumber)).size).toBe(50);
    const stored = await queryRecordRange(deps, firm.firmId, 1, 1000, 'asc');
    expect(stored.map((r) => r.sequenceNumber)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    // Every caller got back exactly the record that was stored under its sequence number.
    for (const record of appended) expect(stored[record.sequenceNumber - 1]).toEqual(record);
    // Every payload was appended exactly once.
    expect(new Set(stored.map((r) => (r.documentMetadata as { n: number }).n)).size).toBe(50);

    let previous: string | null = null;
    for (const record of stored) {
      expect(checkRecord(record, previous)).toEqual([]);
      previous = record.chainHash;
    }
    for (let i = 1; i < stored.length; i++)
      expect(stored[i]!.timestamp >= stored[i - 1]!.timestamp).toBe(true);

    const { body } = await api('GET', '/v1/firm/me/stats', { key: firm.key });
    expect(body.recordCount).toBe(50);
  });

  it("queues one process's concurrent appends to a firm in call order", async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    const appended = await Promise.all(Array.from({ length: 10 }, (_, i) => appendOne(firm, deps, i)));
    expect(appended.map((r) => (r.documentMetadata as { n: number }).n)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(appended.map((r) => r.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('copies every record byte for byte to the immutable store, which refuses to change it', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    const records = await Promise.all([0, 1, 2].map((n) => appendOne(firm, deps, n)));
    for (const record of records) {
      const copy = await deps.objects.get(
        'immutable',
        immutableRecordKey(firm.firmId, record.sequenceNumber, record.id),
      );
      expect(Buffer.from(copy!.body).toString('utf8')).toBe(canonicalJson(record));
      // The callers are answered once the copies are done; the batch's outbox entries are cleared just after.
      await waitFor(async () => {
        const outbox = await deps.db.send(
          new GetCommand({
            TableName: deps.tables.ledger,
            Key: keys.ledgerOutbox(firm.firmId, record.sequenceNumber),
            ConsistentRead: true,
          }),
        );
        return outbox.Item === undefined;
      });
    }
    const key = immutableRecordKey(firm.firmId, 1, records.find((r) => r.sequenceNumber === 1)!.id);
    await expect(
      deps.objects.put('immutable', key, new TextEncoder().encode('{}'), 'application/json'),
    ).rejects.toThrow(/Refused/);
    await expect(deps.objects.delete('immutable', key)).rejects.toThrow(/Refused/);
  });

  it('repairs a crash between the database write and the immutable copy', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    // The process "dies" after the commit: the immutable store never receives the record.
    const crashing: ObjectStore = {
      ...deps.objects,
      put: async () => {
        throw new Error('simulated crash before the immutable copy');
      },
      get: (b, k) => deps.objects.get(b, k),
      list: (b, p) => deps.objects.list(b, p),
      delete: (b, k) => deps.objects.delete(b, k),
    };
    const record = await appendOne(firm, { ...deps, objects: crashing });
    const key = immutableRecordKey(firm.firmId, record.sequenceNumber, record.id);
    expect(await deps.objects.get('immutable', key)).toBeNull();
    const pending = await deps.db.send(
      new GetCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerOutbox(firm.firmId, record.sequenceNumber),
      }),
    );
    expect(pending.Item?.pendingArchive).toBe(outboxShard(firm.firmId, record.sequenceNumber));

    // The running stack's outbox sweep (every second here, 2 s grace) hands it to the archive worker.
    const copy = await waitFor(() => deps.objects.get('immutable', key));
    expect(Buffer.from(copy.body).toString('utf8')).toBe(canonicalJson(record));
    await waitFor(async () => {
      const { Item } = await deps.db.send(
        new GetCommand({
          TableName: deps.tables.ledger,
          Key: keys.ledgerOutbox(firm.firmId, record.sequenceNumber),
        }),
      );
      return Item === undefined;
    });
  });

  it('never reuses a sequence number when the chain head item is lost', async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    await appendOne(firm, deps, 1);
    await appendOne(firm, deps, 2);
    await deps.db.send(
      new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.ledgerHead(firm.firmId) }),
    );
    const third = await appendOne(firm, deps, 3);
    expect(third.sequenceNumber).toBe(3);
    const stored = await queryRecordRange(deps, firm.firmId, 1, 10, 'asc');
    expect(stored.map((r) => r.sequenceNumber)).toEqual([1, 2, 3]);
    expect(checkRecord(stored[2]!, stored[1]!.chainHash)).toEqual([]);
  });
});

describe('independent verification with openssl', () => {
  it('verifies a served record against the published key, and rejects a changed chain hash', async () => {
    const firm = await createFirm();
    await api('PATCH', '/v1/firm/me/settings', { key: firm.key, body: { enforceImpactAssessments: false } });
    const { body: page } = await api('GET', '/v1/ledger/records', { key: firm.key });
    const record = page.data[0] as LedgerRecord;
    const { body: published } = await api('GET', '/.well-known/signing-key');
    expect(record.publicKey).toBe(published.publicKey);
    // The key history lists the key with a window holding the record's time (issue 15).
    const { body: history } = await api<SigningKeyHistory>('GET', '/.well-known/signing-keys');
    expect(keyProblemAt(history, record.publicKey, record.timestamp)).toBeNull();

    const dir = mkdtempSync(join(tmpdir(), 'gls-openssl-'));
    writeFileSync(join(dir, 'key.der'), Buffer.from(published.publicKey, 'base64'));
    execFileSync('openssl', [
      'pkey',
      '-pubin',
      '-inform',
      'DER',
      '-in',
      join(dir, 'key.der'),
      '-out',
      join(dir, 'key.pem'),
    ]);
    writeFileSync(join(dir, 'sig.der'), Buffer.from(record.signature, 'base64'));
    writeFileSync(join(dir, 'chainhash.txt'), record.chainHash);
    // chainHash itself, recomputed with openssl from the two hex texts.
    writeFileSync(join(dir, 'link.txt'), (record.previousHash ?? '') + record.recordHash);
    const digest = execFileSync('openssl', ['dgst', '-sha256', '-r', join(dir, 'link.txt')])
      .toString()
      .split(' ')[0];
    expect(digest).toBe(record.chainHash);

    const verify = (file: string) =>
      spawnSync('openssl', [
        'dgst',
        '-sha256',
        '-verify',
        join(dir, 'key.pem'),
        '-signature',
        join(dir, 'sig.der'),
        join(dir, file),
      ]);
    const good = verify('chainhash.txt');
    expect(good.stdout.toString().trim()).toBe('Verified OK');
    expect(good.status).toBe(0);

    writeFileSync(
      join(dir, 'tampered.txt'),
      record.chainHash.replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
    const bad = verify('tampered.txt');
    expect(bad.status).not.toBe(0);
    expect(bad.stdout.toString()).toMatch(/Verification failure/);
  });
});
