/**
 * The tamper watch (issue 32, docs/architecture.md §6c) end to end on its own embedded stack (the shared one runs
 * without it, LOCAL_STREAM_WORKERS=false): rows deleted or changed straight in DynamoDB Local are flagged through
 * the ledger table's stream within a bounded wait, reported by the backup status, announced by the
 * `ledger.tampering-detected` webhook, and cleared by restore; appends and restore's own writes flag nothing; a
 * ledger whose head and rows are gone is never listed as an empty one.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { keys } from '../../shared/store/keys.js';
import { ledgerctl, startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call } from '../support/stack-client.js';

/** The bound on every wait of this file: generous, never asserted as a duration. */
const WAIT_MS = 60_000;

interface Firm {
  firmId: string;
  key: string;
  token: string;
}

interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

let stack: RunningStack;
let deps: Deps;
let server: Server;
const received: Received[] = [];

beforeAll(async () => {
  stack = await startStack({
    env: {
      OUTBOX_SWEEP_INTERVAL_SECONDS: '1',
      OUTBOX_GRACE_SECONDS: '2',
      WEBHOOK_MAX_ATTEMPTS: '4',
      WEBHOOK_RETRY_BASE_SECONDS: '1',
      WEBHOOK_RETRY_MAX_SECONDS: '1',
      WEBHOOK_TIMEOUT_MS: '2000',
    },
  });
  deps = createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((closed) => server.close(closed));
  await stopStack(stack, { removeData: true });
});

async function onboard(): Promise<Firm> {
  const email = `admin-${Math.random().toString(36).slice(2, 8)}@firm.test`;
  const created = await ledgerctl(stack.dataDir, [
    ...['firm', 'create', '--name', 'Tamper Firm', '--frn', '123456', '--plan', 'BOTH'],
    ...['--admin-name', 'Ada Admin', '--admin-email', email],
  ]);
  if (created.code !== 0) throw new Error(created.stderr);
  const { firm, apiKey } = created.json as { firm: { id: string }; apiKey: string };
  const token = await ledgerctl(stack.dataDir, ['token', '--firm', firm.id, '--email', email]);
  if (token.code !== 0) throw new Error(token.stderr);
  return { firmId: firm.id, key: apiKey, token: (token.json as { token: string }).token };
}

/** `count` records through the API: each flips a compliance setting (on by default; one FIRM_SETTINGS_UPDATED each). */
async function appendRecords(firm: Firm, count: number): Promise<void> {
  for (let n = 0; n < count; n++) {
    const { status } = await call(stack, 'PATCH', '/v1/firm/me/settings', {
      key: firm.key,
      body: { enforceImpactAssessments: n % 2 === 1 },
    });
    expect(status).toBe(200);
  }
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

async function backupStatus(firm: Firm): Promise<any> {
  const { status, body } = await call(stack, 'GET', '/v1/firm/me/backup-status', { key: firm.key });
  expect(status).toBe(200);
  return body;
}

/** Every record is archived (restore needs the copy): nothing pending in the outbox. */
const archived = (firm: Firm) =>
  until(
    'the copies',
    () => backupStatus(firm),
    (s) => s.pendingCopies === 0,
  );

async function rowOf(firm: Firm, sequenceNumber: number): Promise<LedgerRecord> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.ledger, Key: keys.ledgerRecord(firm.firmId, sequenceNumber) }),
  );
  return Item as LedgerRecord;
}

async function restore(firm: Firm, recordId: string) {
  const { status, body } = await call(stack, 'POST', `/v1/ledger/integrity/records/${recordId}/restore`, {
    token: firm.token,
    body: { confirm: true },
  });
  expect(status).toBe(200);
  return body;
}

describe('the tamper watch', () => {
  it('flags a deleted row within a bounded wait, announces it by webhook, and restore clears it', async () => {
    const firm = await onboard();
    const hook = await call(stack, 'POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        events: ['ledger.tampering-detected'],
      },
    });
    expect(hook.status).toBe(201);
    await appendRecords(firm, 6);
    const healthy = await archived(firm);
    expect(healthy).toMatchObject({
      healthy: true,
      tampering: { detected: false, sequenceNumbers: [] },
      chainHeadMissing: false,
      problems: [],
    });

    const target = await rowOf(firm, 3);
    await deps.db.send(
      new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.ledgerRecord(firm.firmId, 3) }),
    );
    const flagged = await until(
      'the flag',
      () => backupStatus(firm),
      (s) => s.tampering.detected,
    );
    expect(flagged).toMatchObject({
      healthy: false,
      tampering: {
        detected: true,
        sequenceNumbers: [3],
        more: false,
        flags: [{ sequenceNumber: 3, change: 'REMOVED', fieldsChanged: [], detectedAt: expect.any(String) }],
      },
    });
    expect(flagged.problems).toEqual([expect.stringContaining('sequence number 3')]);

    // The webhook: the spec's envelope of the TAMPERING_DETECTED record the watch appended with the flag.
    const delivery = await until(
      'the webhook',
      async () => received,
      (all) => all.length > 0,
    );
    expect(delivery).toHaveLength(1);
    expect(delivery[0]!.headers['x-service-event']).toBe('ledger.tampering-detected');
    const detection = delivery[0]!.body;
    expect(detection).toMatchObject({
      firmId: firm.firmId,
      eventType: 'TAMPERING_DETECTED',
      documentHash: '',
    });
    expect(detection.id).toBe(flagged.tampering.flags[0].detectionRecordId);
    const { body: record } = await call(stack, 'GET', `/v1/ledger/records/${String(detection.id)}`, {
      key: firm.key,
    });
    expect(record.documentMetadata).toMatchObject({
      sequenceNumber: 3,
      recordId: target.id,
      change: 'REMOVED',
    });

    expect(await restore(firm, target.id)).toMatchObject({ restored: true, action: 'REINSERTED' });
    expect((await backupStatus(firm)).tampering).toEqual({
      detected: false,
      sequenceNumbers: [],
      more: false,
      flags: [],
    });
  });

  it("flags a changed field; restore's own overwrite and appends flag nothing", async () => {
    const firm = await onboard();
    await appendRecords(firm, 5);
    await archived(firm);
    const target = await rowOf(firm, 2);
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, 2),
        UpdateExpression: 'SET actorName = :name',
        ExpressionAttributeValues: { ':name': 'Someone Else' },
      }),
    );
    const flagged = await until(
      'the flag',
      () => backupStatus(firm),
      (s) => s.tampering.detected,
    );
    expect(flagged.tampering.flags).toEqual([
      expect.objectContaining({ sequenceNumber: 2, change: 'MODIFIED', fieldsChanged: ['actorName'] }),
    ]);

    // Restore overwrites the row (a MODIFY in the stream, like the tampering): judged intact, not flagged.
    expect(await restore(firm, target.id)).toMatchObject({ restored: true, action: 'OVERWRITTEN' });
    expect((await backupStatus(firm)).tampering.detected).toBe(false);
    await appendRecords(firm, 2);
    // A later tampering of the same firm's partition is seen after the restore's change (one stream shard, in
    // order): once it is flagged, the restore's change and the appends were judged, and only it stands.
    await deps.db.send(
      new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.ledgerRecord(firm.firmId, 4) }),
    );
    const after = await until(
      'the second flag',
      () => backupStatus(firm),
      (s) => s.tampering.detected,
    );
    expect(after.tampering.sequenceNumbers).toEqual([4]);
  });

  it('a ledger whose head and rows are gone is reported, never listed as empty, and recovery clears it', async () => {
    const firm = await onboard();
    await appendRecords(firm, 3);
    await archived(firm);
    const { body: before } = await call(stack, 'GET', '/v1/ledger/records', { key: firm.key });
    expect(before.data).toHaveLength(3);

    await deps.db.send(
      new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.ledgerHead(firm.firmId) }),
    );
    for (const sequenceNumber of [1, 2, 3])
      await deps.db.send(
        new DeleteCommand({
          TableName: deps.tables.ledger,
          Key: keys.ledgerRecord(firm.firmId, sequenceNumber),
        }),
      );

    // At once, from the write-once copies, before the watch has said anything.
    const listed = await call(stack, 'GET', '/v1/ledger/records', { key: firm.key });
    expect(listed.status).toBe(409);
    expect(listed.body.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('damaged'),
    });
    const status = await until(
      'the flags',
      () => backupStatus(firm),
      (s) => s.tampering.sequenceNumbers.length === 3,
    );
    expect(status).toMatchObject({
      healthy: false,
      chainHeadMissing: true,
      // No head to append a record to: the flags stand alone.
      tampering: { detected: true, sequenceNumbers: [1, 2, 3] },
    });
    expect(status.tampering.flags.map((f: { detectionRecordId: unknown }) => f.detectionRecordId)).toEqual([
      null,
      null,
      null,
    ]);
    expect(status.problems).toHaveLength(2);

    // `ledgerctl recover ledger` writes the rows back from their copies and clears the flags of those it wrote.
    const recovered = await ledgerctl(stack.dataDir, ['recover', 'ledger', '--firm', firm.firmId]);
    expect(recovered.code).toBe(0);
    expect(recovered.json).toMatchObject({ status: 'complete', recovered: 3, gaps: [], invalidCopies: [] });
    expect(await backupStatus(firm)).toMatchObject({
      healthy: true,
      chainHeadMissing: false,
      tampering: { detected: false, sequenceNumbers: [], more: false, flags: [] },
      problems: [],
    });
    const { status: listedStatus, body: after } = await call(stack, 'GET', '/v1/ledger/records', {
      key: firm.key,
    });
    expect(listedStatus).toBe(200);
    expect(after.data).toEqual(before.data);
  });
});
