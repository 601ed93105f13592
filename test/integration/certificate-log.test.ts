import { until } from '../support/until.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HtmlValidate } from 'html-validate';
import { escapeHtml } from '../../shared/domain/certificates/verify-page.js';
import { parseCheckpoint } from '../../shared/domain/tlog/checkpoint.js';
import { parseNote, verifierFromVkey, verifyNote } from '../../shared/domain/tlog/note.js';
import { keys } from '../../shared/store/keys.js';
import { launchBrowser } from '../support/browser.js';
import { incidentBody } from '../support/stack-client.js';
import { startWitness, stopWitness, type WitnessProcess } from '../support/witness-process.js';
import { api, createFirm, stack, stackDeps, type TestFirm } from './helpers.js';

/*
 * The public certificate check speaks of the verifiable log (issue 31): GET /v1/verify/{id} and the page
 * /verify/{id} say "included in <origin> at size N, signed by …, cosigned by …", checked at the time of asking
 * (the inclusion proof against the checkpoint's root, the log's signatures, each known witness's cosignature).
 * On the shared stack, with one of our witnesses (bin/witness.ts) registered by the firm.
 */

describe('the certificate check and the verifiable log', () => {
  let firm: TestFirm;
  let tmp: string;
  let witness: WitnessProcess;
  let record: { id: string; sequenceNumber: number };
  let certificateId: string;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gls-certificate-log-'));
    firm = await createFirm();
    const vkeys = await api<string>('GET', '/v1/ledger/log/vkeys', { key: firm.key });
    expect(vkeys.status).toBe(200);
    writeFileSync(join(tmp, 'log-vkeys.txt'), vkeys.body);
    witness = await startWitness(join(tmp, 'state'), 'witness-cert.test/w', join(tmp, 'log-vkeys.txt'));
    const registered = await api('POST', '/v1/firm/me/witnesses', {
      key: firm.key,
      body: { vkey: witness.vkey, url: witness.url },
    });
    expect(registered.status).toBe(201);

    for (let n = 0; n < 3; n++)
      expect((await api('POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) })).status).toBe(201);
    const head = await api('GET', '/v1/ledger/records?order=desc&pageSize=1', { key: firm.key });
    record = head.body.data[0];
    expect((await api('POST', `/v1/ledger/records/${record.id}/certificate`, { key: firm.key })).status).toBe(
      200,
    );
    certificateId = await until('the certificate', async () => {
      const r = await api('GET', `/v1/ledger/records/${record.id}/certificate`, { key: firm.key });
      return r.status === 200 ? (r.body.certificateId as string) : undefined;
    });
  }, 120_000);

  afterAll(async () => {
    if (witness) await stopWitness(witness);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('says the record is included in the origin at size N, signed by the log, cosigned by the witness', async () => {
    const verified = await until('a verified inclusion cosigned by the witness', async () => {
      const r = await api('GET', `/v1/verify/${certificateId}`);
      expect(r.status).toBe(200);
      return r.body.log.inclusion === 'verified' && r.body.log.cosignedBy.length === 1 ? r.body : undefined;
    });
    const host = new URL(stack.baseUrl).host;
    const origin = `${host}/ledger/${firm.firmId}`;
    const { log } = verified;
    expect(verified.valid).toBe(true);
    expect(verified.reason).toBeNull();
    expect(log).toMatchObject({
      inclusion: 'verified',
      origin,
      leafIndex: record.sequenceNumber - 1,
      logSignatures: ['ecdsa', 'ed25519'],
      cosignedBy: [{ name: 'witness-cert.test/w', keyId: witness.vkey.split('+')[1] }],
    });
    // The size is the checkpoint's own, which covers the record; the note is the signed checkpoint itself.
    const checkpoint = parseCheckpoint(parseNote(log.checkpoint).text);
    expect(checkpoint).toMatchObject({ origin, size: log.treeSize });
    expect(log.treeSize).toBeGreaterThanOrEqual(record.sequenceNumber);
    const { verified: cosigners } = await verifyNote(log.checkpoint, [await verifierFromVkey(witness.vkey)]);
    expect(cosigners.map((v) => v.name)).toEqual(['witness-cert.test/w']);
    expect(Date.parse(log.cosignedBy[0].timestamp)).not.toBeNaN();
    expect(log.statement).toBe(
      `Included in ${origin} at size ${log.treeSize} (leaf ${log.leafIndex}), signed by the log's ledger key (ECDSA P-256) and checkpoint key (Ed25519), cosigned by witness-cert.test/w at ${log.cosignedBy[0].timestamp}.`,
    );

    // The page says the same sentence, valid HTML, in a phone's width, without script.
    const page = await api<string>('GET', `/verify/${certificateId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`<p class="log-statement">${escapeHtml(log.statement)}</p>`);
    const report = await new HtmlValidate({ extends: ['html-validate:recommended'] }).validateString(
      page.body,
    );
    expect(report.results.flatMap((r) => r.messages.map((m) => m.message))).toEqual([]);
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        isMobile: true,
        javaScriptEnabled: false,
      });
      const tab = await context.newPage();
      await tab.goto(`${stack.baseUrl}/verify/${certificateId}`);
      expect(await tab.locator('.log-statement').innerText()).toBe(log.statement);
      expect(await tab.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    } finally {
      await browser.close();
    }
  });

  it('says NOT included, and invalid, once the row is rewritten after the checkpoint', async () => {
    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, record.sequenceNumber),
        UpdateExpression: 'SET chainHash = :h',
        ExpressionAttributeValues: { ':h': 'ab'.repeat(32) },
      }),
    );
    const tampered = await api('GET', `/v1/verify/${certificateId}`);
    expect(tampered.status).toBe(200);
    expect(tampered.body.valid).toBe(false);
    expect(tampered.body.log.inclusion).toBe('failed');
    expect(tampered.body.log.statement).toMatch(/^NOT included in /);
    expect(tampered.body.reason).toContain(
      `the verifiable log: the record's chainHash is not leaf ${record.sequenceNumber - 1} of the checkpoint's tree`,
    );
  });
});
