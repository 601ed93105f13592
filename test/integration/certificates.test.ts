import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { HtmlValidate } from 'html-validate';
import { launchBrowser } from '../support/browser.js';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { LedgerEventType } from '../../shared/ledger/event-types.js';
import { signedMessage } from '../../shared/ledger/hashing.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';
import { keys } from '../../shared/store/keys.js';
import { api, createFirm, stack, stackDeps, type TestFirm } from './helpers.js';

const reviewer = { id: 'usr_reviewer', name: 'Priya Raman', fcaRef: 'PXR01234' };

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

/**
 * Deps whose queue refuses every message: a record appended with them keeps its outbox entry, so the
 * running stack's outbox sweep dispatches it, inside the stack, to the stack's certificate worker (the test
 * process's own local queue has no workers).
 */
function dispatchInStack(): Deps {
  const deps = stackDeps();
  return {
    ...deps,
    queue: {
      send: async () => {
        throw new Error('dispatch deferred to the stack');
      },
    },
  };
}

function append(
  firm: TestFirm,
  eventType: LedgerEventType,
  documentMetadata: Record<string, unknown>,
  reviewJobId: string | null = null,
  deps: Deps = dispatchInStack(),
): Promise<LedgerRecord> {
  return appendRecord(deps, {
    firmId: firm.firmId,
    eventType,
    actor: reviewer,
    documentHash: 'c'.repeat(64),
    documentMetadata,
    reviewJobId,
  });
}

/** A review job item as the review flow leaves it after completion, with certificateId still null. */
async function seedJob(firm: TestFirm, jobId: string, outcome: string): Promise<void> {
  const deps = stackDeps();
  await deps.db.send(
    new PutCommand({
      TableName: deps.tables.main,
      Item: {
        ...keys.job(firm.firmId, jobId),
        id: jobId,
        firmId: firm.firmId,
        documentReference: 'SR-2026-00412',
        documentType: 'suitability-report',
        documentHash: 'c'.repeat(64),
        clientReference: 'CL-1',
        status: outcome === 'REJECTED' ? 'REJECTED' : 'APPROVED',
        outcome,
        outcomeReason: outcome === 'REJECTED' ? 'Affordability is not evidenced' : null,
        modifications: null,
        submittedAt: '2026-11-20T09:12:00.000Z',
        completedAt: '2026-11-21T14:03:27.000Z',
        certificateId: null,
      },
    }),
  );
}

async function mainItem(firm: TestFirm, sk: string) {
  const deps = stackDeps();
  const { Item } = await deps.db.send(
    new GetCommand({
      TableName: deps.tables.main,
      Key: { pk: keys.firmPk(firm.firmId), sk },
      ConsistentRead: true,
    }),
  );
  return Item;
}

async function certificateOf(firm: TestFirm, recordId: string) {
  const response = await waitFor(async () => {
    const r = await api<{ url: string; certificateId: string }>(
      'GET',
      `/v1/ledger/records/${recordId}/certificate`,
      {
        key: firm.key,
      },
    );
    return r.status === 200 ? r : null;
  });
  return response.body;
}

async function pdfObjects(firm: TestFirm): Promise<string[]> {
  const found: string[] = [];
  for await (const key of stackDeps().objects.list('certificates', `certificates/${firm.firmId}/`))
    found.push(key);
  return found;
}

/** Asserts the record has exactly one certificate (item, reservation, listing, PDF object) and returns its id. */
async function expectOneCertificate(firm: TestFirm, recordId: string): Promise<string> {
  const { certificateId } = await certificateOf(firm, recordId);
  const { Items = [] } = await stackDeps().db.send(
    new QueryCommand({
      TableName: stackDeps().tables.main,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :cert)',
      ExpressionAttributeValues: { ':pk': keys.firmPk(firm.firmId), ':cert': 'CERT#' },
      ConsistentRead: true,
    }),
  );
  const items = Items.filter((c) => c.ledgerRecordId === recordId);
  expect(items.map((c) => c.id as string)).toEqual([certificateId]);
  expect((await mainItem(firm, `CERTRESERVE#${recordId}`))?.certificateId).toBe(certificateId);
  expect((await pdfObjects(firm)).filter((k) => k.includes(certificateId))).toEqual([
    `certificates/${firm.firmId}/${certificateId}.pdf`,
  ]);
  return certificateId;
}

const tmp = mkdtempSync(join(tmpdir(), 'gls-certs-'));

describe('certificates', () => {
  it('auto-issues for an outcome record, fills the job, and serves the PDF (qpdf --check passes)', async () => {
    const firm = await createFirm();
    const jobId = 'job_01JDX3K6Q8N2T5V7W9Y1Z3B5C7';
    await seedJob(firm, jobId, 'APPROVED');
    const record = await append(firm, 'DOCUMENT_APPROVED', { documentReference: 'SR-2026-00412' }, jobId);

    const { url, certificateId } = await certificateOf(firm, record.id);
    expect(certificateId).toMatch(/^cert_/);
    expect((await waitFor(async () => (await mainItem(firm, `JOB#${jobId}`))?.certificateId)) as string).toBe(
      certificateId,
    );

    const pdf = await fetch(url);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const file = join(tmp, 'approved.pdf');
    writeFileSync(file, Buffer.from(await pdf.arrayBuffer()));
    expect(execFileSync('qpdf', ['--check', file], { encoding: 'utf8' })).toContain(
      'No syntax or stream encoding errors found',
    );
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('Advice document approved');
    expect(text).toContain('SR-2026-00412');
    expect(text).toContain(record.recordHash);
    expect(text).toContain(`${stack.baseUrl}/verify/${certificateId}`);

    const one = await api('GET', `/v1/ledger/certificates/${certificateId}`, { key: firm.key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: certificateId,
      ledgerRecordId: record.id,
      firmId: firm.firmId,
      firmName: firm.firm.name,
      firmFrnNumber: '123456',
      verificationUrl: `${stack.baseUrl}/verify/${certificateId}`,
      pdfStorageKey: `certificates/${firm.firmId}/${certificateId}.pdf`,
      metadata: { eventType: 'DOCUMENT_APPROVED', statusPill: { label: 'APPROVED' } },
    });
    expect(one.body.pdfUrl).toMatch(/^http/);
    const list = await api('GET', '/v1/ledger/certificates', { key: firm.key });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: string }) => c.id)).toEqual([certificateId]);

    const again = await api('POST', `/v1/ledger/records/${record.id}/certificate`, { key: firm.key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ certificateId, status: 'existing' });
    const stats = await api('GET', '/v1/firm/me/stats', { key: firm.key });
    expect(stats.body.certificateCount).toBe(1);
  });

  it("fills an approved assessment's certificateId, and never creates a job or assessment that does not exist", async () => {
    const firm = await createFirm();
    const deps = stackDeps();
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.main,
        Item: {
          pk: keys.firmPk(firm.firmId),
          sk: 'IA#ia_1',
          id: 'ia_1',
          status: 'APPROVED',
          certificateId: null,
        },
      }),
    );
    const approval = await append(firm, 'IMPACT_ASSESSMENT_APPROVED', {
      assessmentId: 'ia_1',
      useCase: 'AI-drafted suitability reports',
      modelProvider: 'anthropic',
      modelVersion: 'claude-3',
      templateVersion: 1,
      outcomes: { priceAndValue: { response: 'ok', rating: 'LOW' } },
      signer: { name: 'Dr. Hannah Okafor', role: 'LEAD_REVIEWER' },
    });
    const orphan = await append(firm, 'DOCUMENT_REJECTED', { outcomeReason: 'x' }, 'job_never_existed');
    const { certificateId } = await certificateOf(firm, approval.id);
    expect((await waitFor(async () => (await mainItem(firm, 'IA#ia_1'))?.certificateId)) as string).toBe(
      certificateId,
    );
    await certificateOf(firm, orphan.id);
    expect(await mainItem(firm, 'JOB#job_never_existed')).toBeUndefined();
  });

  it('issues one certificate per record under races: parallel requests, auto-issue and duplicate deliveries', async () => {
    const firm = await createFirm();
    const plain = await append(firm, 'GENERATION_RECORDED', { n: 1 });
    const outcome = await append(
      firm,
      'DOCUMENT_MODIFIED',
      { modifications: 'Add the ongoing charge.' },
      'job_x',
    );
    const deps = stackDeps();
    const deliver = (record: LedgerRecord) =>
      issueCertificate(
        deps,
        {
          firmId: firm.firmId,
          sequenceNumber: record.sequenceNumber,
          recordId: record.id,
          eventType: record.eventType,
        },
        stack.baseUrl,
      );
    const post = (record: LedgerRecord) =>
      api<{ certificateId: string | null; status: string }>(
        'POST',
        `/v1/ledger/records/${record.id}/certificate`,
        {
          key: firm.key,
        },
      );
    // For each record: 6 requests through the API (each may enqueue), 3 deliveries straight to the worker
    // code in this process (SQS handing a message to two consumers), and, for the outcome, the auto-issue.
    const results = await Promise.all(
      [plain, outcome].flatMap((record) => [
        ...Array.from({ length: 6 }, () => post(record)),
        ...Array.from({ length: 3 }, () => deliver(record)),
      ]),
    );
    for (const record of [plain, outcome]) {
      const id = await expectOneCertificate(firm, record.id);
      const issued = results.filter((r) => 'ledgerRecordId' in r && r.ledgerRecordId === record.id);
      expect(new Set(issued.map((r) => (r as { id: string }).id))).toEqual(new Set([id]));
    }
    for (const response of results.filter((r) => 'status' in r)) {
      const { status, body } = response as Awaited<ReturnType<typeof post>>;
      expect(status).toBe(200);
      expect(['existing', 'enqueued']).toContain(body.status);
      if (body.status === 'enqueued') expect(body.certificateId).toBeNull();
      else expect(body.certificateId).toMatch(/^cert_/);
    }
    // Every later request, and a repeated delivery, still finds the same one.
    const plainId = await expectOneCertificate(firm, plain.id);
    expect((await post(plain)).body).toEqual({ certificateId: plainId, status: 'existing' });
    expect((await deliver(plain)).id).toBe(plainId);
    expect(await pdfObjects(firm)).toHaveLength(2);
  });

  it('converges after a crash mid-generation: the retry reuses the reserved id and the PDF key', async () => {
    const firm = await createFirm();
    const record = await append(firm, 'GENERATION_RECORDED', { n: 1 }, null, stackDeps());
    const message = {
      firmId: firm.firmId,
      sequenceNumber: record.sequenceNumber,
      recordId: record.id,
      eventType: record.eventType,
    };
    const deps = stackDeps();
    // The process dies right after the PDF reached the bucket, before the certificate item was written.
    const crashing: Deps = {
      ...deps,
      objects: {
        ...deps.objects,
        get: (b, k) => deps.objects.get(b, k),
        list: (b, p) => deps.objects.list(b, p),
        delete: (b, k) => deps.objects.delete(b, k),
        presignPut: (b, k, o) => deps.objects.presignPut(b, k, o),
        presignGet: (b, k, o) => deps.objects.presignGet(b, k, o),
        put: async (b, k, body, type) => {
          await deps.objects.put(b, k, body, type);
          throw new Error('simulated crash after the PDF was stored');
        },
      },
    };
    await expect(issueCertificate(crashing, message, stack.baseUrl)).rejects.toThrow('simulated crash');
    const reserved = (await mainItem(firm, `CERTRESERVE#${record.id}`))!.certificateId as string;
    expect(await mainItem(firm, `CERT#${record.id}`)).toBeUndefined();
    expect(await pdfObjects(firm)).toEqual([`certificates/${firm.firmId}/${reserved}.pdf`]);
    expect((await api('GET', `/v1/ledger/records/${record.id}/certificate`, { key: firm.key })).status).toBe(
      404,
    );

    // The redelivery (here: a request, through the stack's queue) finishes the same certificate.
    expect(
      (await api('POST', `/v1/ledger/records/${record.id}/certificate`, { key: firm.key })).body,
    ).toEqual({
      certificateId: null,
      status: 'enqueued',
    });
    expect(await expectOneCertificate(firm, record.id)).toBe(reserved);
    expect(await pdfObjects(firm)).toEqual([`certificates/${firm.firmId}/${reserved}.pdf`]);
  });

  it('answers 404 for unknown records and certificates and before generation, and keeps firms apart', async () => {
    const firm = await createFirm();
    const other = await createFirm();
    const record = await append(firm, 'DOCUMENT_APPROVED', {});
    const { certificateId } = await certificateOf(firm, record.id);
    const pending = await append(firm, 'GENERATION_RECORDED', {}, null, stackDeps());

    expect((await api('GET', `/v1/ledger/records/${pending.id}/certificate`, { key: firm.key })).status).toBe(
      404,
    );
    for (const [method, path] of [
      ['GET', '/v1/ledger/records/rec_01JDX3K6Q8N2T5V7W9Y1Z3B5C7/certificate'],
      ['POST', '/v1/ledger/records/rec_01JDX3K6Q8N2T5V7W9Y1Z3B5C7/certificate'],
      ['GET', '/v1/ledger/certificates/cert_01JDX3K6Q8N2T5V7W9Y1Z3B5C7'],
      ['GET', '/v1/verify/cert_01JDX3K6Q8N2T5V7W9Y1Z3B5C7'],
    ] as const) {
      const response = await api(method, path, { key: firm.key });
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'NOT_FOUND',
      });
    }
    // Another firm sees none of it: 404, never the certificate or its URL.
    for (const [method, path] of [
      ['GET', `/v1/ledger/records/${record.id}/certificate`],
      ['POST', `/v1/ledger/records/${record.id}/certificate`],
      ['GET', `/v1/ledger/certificates/${certificateId}`],
    ] as const) {
      const response = await api(method, path, { key: other.key });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(JSON.stringify(response.body)).not.toContain(certificateId);
    }
    expect((await api('GET', '/v1/ledger/certificates', { key: other.key })).body).toEqual([]);
    expect((await api('GET', '/v1/ledger/certificates')).status).toBe(401);
    expect((await api('POST', `/v1/ledger/records/${record.id}/certificate`)).status).toBe(401);
  });

  it('verifies publicly, then says invalid and why after the row is tampered with or re-signed', async () => {
    const firm = await createFirm();
    await append(firm, 'GENERATION_RECORDED', {}, null, stackDeps());
    const record = await append(firm, 'DOCUMENT_REJECTED', { outcomeReason: 'Affordability' });
    const { certificateId } = await certificateOf(firm, record.id);

    const valid = await api(`GET`, `/v1/verify/${certificateId}`);
    expect(valid.status).toBe(200);
    // Like the HTML page, never cached (issue 12, part 8): verifiedAt is now, and tampering shows at once.
    expect(valid.headers.get('cache-control')).toBe('no-store');
    // The Verification result of the spec (valid, certificate, record, verifiedAt, reason), and what the
    // verifiable log says of the record (issue 31; test/integration/certificate-log.test.ts).
    expect(Object.keys(valid.body).sort()).toEqual([
      'certificate',
      'log',
      'reason',
      'record',
      'valid',
      'verifiedAt',
    ]);
    expect(valid.body).toMatchObject({
      valid: true,
      reason: null,
      certificate: { id: certificateId, ledgerRecordId: record.id },
      record: {
        id: record.id,
        sequenceNumber: 2,
        documentHash: record.documentHash,
        previousHash: record.previousHash,
        recordHash: record.recordHash,
        chainHash: record.chainHash,
        signature: record.signature,
        publicKey: record.publicKey,
      },
    });
    expect(Date.parse(valid.body.verifiedAt)).not.toBeNaN();

    // An attacker with database access rewrites the outcome reason.
    const deps = stackDeps();
    const row = { TableName: deps.tables.ledger, Key: keys.ledgerRecord(firm.firmId, record.sequenceNumber) };
    await deps.db.send(
      new UpdateCommand({
        ...row,
        UpdateExpression: 'SET documentMetadata.outcomeReason = :r',
        ExpressionAttributeValues: { ':r': 'Approved after all' },
      }),
    );
    const tampered = await api('GET', `/v1/verify/${certificateId}`);
    expect(tampered.status).toBe(200);
    expect(tampered.body.valid).toBe(false);
    expect(tampered.body.reason).toContain('recordHash does not match');
    expect(tampered.body.reason).toContain('differs from its immutable copy in documentMetadata');

    // A cleverer one recomputes nothing but re-signs with a key of their own: the key is not the service's.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await deps.db.send(
      new UpdateCommand({
        ...row,
        UpdateExpression: 'SET documentMetadata.outcomeReason = :r, signature = :s, publicKey = :k',
        ExpressionAttributeValues: {
          ':r': 'Affordability',
          ':s': sign('sha256', signedMessage(record.chainHash), {
            key: privateKey,
            dsaEncoding: 'der',
          }).toString('base64'),
          ':k': publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        },
      }),
    );
    const resigned = await api('GET', `/v1/verify/${certificateId}`);
    expect(resigned.body.valid).toBe(false);
    expect(resigned.body.reason).toContain('signed with a key the service has not published');
    expect(resigned.body.reason).not.toContain('recordHash does not match');

    // Deleting the row (and with it the evidence) is no way out either.
    await deps.db.send(new DeleteCommand(row));
    const deleted = await api('GET', `/v1/verify/${certificateId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.valid).toBe(false);
    expect(deleted.body.reason).toContain('no record is stored under sequence number 2 (it was deleted)');
    expect(deleted.body.record.recordHash).toBe(record.recordHash); // shown from the immutable copy
  });

  it('renders the verification page for phones in headless Chromium, without script', async () => {
    const firm = await createFirm();
    const record = await append(firm, 'DOCUMENT_APPROVED', { documentReference: '<b>SR-1</b>' });
    const { certificateId } = await certificateOf(firm, record.id);
    const browser = await launchBrowser();
    const shots = join(process.cwd(), '.tmp', 'screenshots');
    mkdirSync(shots, { recursive: true });
    try {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      const response = await page.goto(`${stack.baseUrl}/verify/${certificateId}`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await expect(page.locator('h1').innerText()).resolves.toContain('Valid certificate');
      const body = await page.locator('body').innerText();
      expect(body).toContain(firm.firm.name as string);
      expect(body).toContain('<b>SR-1</b>'); // shown as text, not markup
      expect(body).toContain(record.recordHash);
      expect(await page.locator('script').count()).toBe(0);
      // Nothing wider than the phone's screen.
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      // The style element applies under the CSP's hash (no 'unsafe-inline'): the verdict and the pill are green.
      expect(
        await page.evaluate<string[]>(
          "['.verdict', '.pill'].map((s) => getComputedStyle(document.querySelector(s)).backgroundColor)",
        ),
      ).toEqual(['rgb(23, 115, 61)', 'rgb(23, 115, 61)']);
      await page.screenshot({ path: join(shots, 'verify-valid.png'), fullPage: true });

      const deps = stackDeps();
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tables.ledger,
          Key: keys.ledgerRecord(firm.firmId, record.sequenceNumber),
          UpdateExpression: 'SET actorName = :n',
          ExpressionAttributeValues: { ':n': 'Someone Else' },
        }),
      );
      await page.goto(`${stack.baseUrl}/verify/${certificateId}`);
      await expect(page.locator('h1').innerText()).resolves.toContain('Invalid certificate');
      expect(await page.locator('.verdict p').innerText()).toContain('recordHash does not match');
      await page.screenshot({ path: join(shots, 'verify-invalid.png'), fullPage: true });

      const unknown = await page.goto(`${stack.baseUrl}/verify/cert_unknown`);
      expect(unknown?.status()).toBe(404);
      await expect(page.locator('h1').innerText()).resolves.toContain('Certificate not found');
    } finally {
      await browser.close();
    }
  });

  it('serves pages that pass html-validate (recommended) under a CSP without unsafe-inline', async () => {
    const firm = await createFirm();
    const record = await append(firm, 'DOCUMENT_APPROVED', { documentReference: 'SR-2' });
    const { certificateId } = await certificateOf(firm, record.id);
    const valid = await api<string>('GET', `/verify/${certificateId}`);
    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, record.sequenceNumber),
        UpdateExpression: 'SET actorName = :n',
        ExpressionAttributeValues: { ':n': 'Someone Else' },
      }),
    );
    const invalid = await api<string>('GET', `/verify/${certificateId}`);
    const unknown = await api<string>('GET', '/verify/cert_unknown');
    expect([valid.status, invalid.status, unknown.status]).toEqual([200, 200, 404]);
    expect(valid.body).toContain('class="pill positive"'); // the approved pill, coloured by a class
    expect(invalid.body).toContain('Invalid certificate');

    const validator = new HtmlValidate({ extends: ['html-validate:recommended'] });
    for (const page of [valid, invalid, unknown]) {
      const report = await validator.validateString(page.body);
      const problems = report.results.flatMap((r) =>
        r.messages.map((m) => `${m.ruleId}: ${m.message} (${m.line}:${m.column})`),
      );
      expect(problems).toEqual([]);
      // The CSP allows exactly the page's one style element, by its hash; nothing inline besides.
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).not.toContain('unsafe-inline');
      const styles = [...page.body.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
      expect(styles).toHaveLength(1);
      const hash = createHash('sha256').update(styles[0]!, 'utf8').digest('base64');
      expect(csp).toContain(`style-src 'sha256-${hash}'`);
      expect(page.body).not.toMatch(/\sstyle=/);
    }
  });
});
