import { createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { api, createFirm, seedUser, type TestFirm, tokenFor, uploadDocument } from './helpers.js';

/**
 * One advice document through every area that reacts to the ledger: submission, routing, the reviewer's
 * decision, the outcome's certificate (auto-issued, publicly verifiable), the webhooks of the sequence and the
 * governance reports fed by the outcome record. Each area has its own suite; this one proves they are wired
 * to each other through the real dispatch path.
 */

interface Delivery {
  event: string;
  body: { sequenceNumber: number; eventType: string; id: string };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

describe('a review from upload to certificate, webhooks and reports', () => {
  let firm: TestFirm;
  let receiver: Server;
  let secret = '';
  const deliveries: Delivery[] = [];
  const badSignatures: string[] = [];

  beforeAll(async () => {
    firm = await createFirm('BOTH');
    receiver = createServer((request, response) => {
      void readBody(request).then((raw) => {
        const expected = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
        if (request.headers['x-service-signature'] !== expected) badSignatures.push(raw);
        else
          deliveries.push({
            event: String(request.headers['x-service-event']),
            body: JSON.parse(raw) as Delivery['body'],
          });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('anchors, certifies, notifies and reports one completed review', async () => {
    const { port } = receiver.address() as AddressInfo;
    const subscribed = ['job.submitted', 'review.started', 'review.completed', 'document.approved'];
    const hook = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: `http://127.0.0.1:${port}/hooks`, events: subscribed },
    });
    expect(hook.status).toBe(201);
    secret = hook.body.secret;

    // A senior reviewer, signed in (first request), free for work.
    const email = `lead-${Date.now().toString(36)}@firm.test`;
    await seedUser(firm.firmId, 'LEAD_REVIEWER', email);
    const token = await tokenFor(firm.firmId, email);
    expect((await api('GET', '/v1/review/queue', { token })).status).toBe(200);

    // The model's impact assessment, signed off by the senior: it opens the submission gate and is certified.
    const assessment = await api('POST', '/v1/impact-assessments', {
      key: firm.key,
      body: {
        useCase: 'Drafting suitability reports',
        description: 'An LLM drafts reports that an adviser edits and a reviewer checks',
        modelProvider: 'acme-ai',
        modelVersion: '2026-10',
      },
    });
    expect(assessment.status).toBe(201);
    const assessmentPath = `/v1/impact-assessments/${assessment.body.id}`;
    const pending = await api('POST', assessmentPath, { key: firm.key, body: { status: 'PENDING_SIGNOFF' } });
    expect(pending.status).toBe(200);
    const approved = await api('POST', assessmentPath, { token, body: { status: 'APPROVED' } });
    expect(approved.status).toBe(200);
    expect(approved.body.ledgerRecordId).toBeTruthy();

    // Upload with a real PUT, then submit an AI-assisted suitability report.
    const bytes = new Uint8Array(randomBytes(2_048));
    const documentKey = await uploadDocument({ key: firm.key }, bytes, 'advice.pdf');
    const submitted = await api('POST', '/v1/review/jobs', {
      key: firm.key,
      body: {
        documentKey,
        documentType: 'SUITABILITY_REPORT',
        clientReference: 'CLIENT-E2E',
        documentReference: 'DOC-E2E-1',
        factFindSummary: { objective: 'retirement income' },
        aiContext: { model: { provider: 'acme-ai', version: '2026-10' } },
        clientSegments: { ageBand: '55-64' },
      },
    });
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.id;
    expect(submitted.body.documentHash).toBe(createHash('sha256').update(bytes).digest('hex'));

    // Routed to the free senior, who starts and approves it.
    const assigned = await until(async () => {
      const { body } = await api('GET', `/v1/review/jobs/${jobId}`, { key: firm.key });
      return body.status === 'ASSIGNED' ? body : undefined;
    }, 'assignment');
    expect(assigned.assignedReviewerId).toBeTruthy();
    expect((await api('POST', `/v1/review/jobs/${jobId}/start`, { token })).status).toBe(200);
    const completed = await api('POST', `/v1/review/jobs/${jobId}/complete`, {
      token,
      body: { outcome: 'APPROVED', annotations: [{ page: 2, text: 'Fees disclosed clearly' }] },
    });
    expect(completed.status).toBe(200);
    expect(completed.body.status).toBe('APPROVED');
    const outcomeRecordId: string = completed.body.ledgerRecordId;

    // The ledger holds the spec's sequence for the job, in order.
    const { body: records } = await api('GET', '/v1/ledger/records?pageSize=100', { key: firm.key });
    const sequence = (
      records.data as { eventType: string; reviewJobId: string | null; sequenceNumber: number }[]
    )
      .filter((record) => record.reviewJobId === jobId)
      .sort((a, b) => a.sequenceNumber - b.sequenceNumber)
      .map((record) => record.eventType);
    expect(sequence).toEqual([
      'DOCUMENT_SUBMITTED',
      'REVIEW_STARTED',
      'REVIEW_COMPLETED',
      'DOCUMENT_APPROVED',
    ]);

    // The outcome's certificate is issued without being asked, linked to the job and publicly valid.
    const certificateId = await until(async () => {
      const { body } = await api('GET', `/v1/review/jobs/${jobId}`, { key: firm.key });
      return typeof body.certificateId === 'string' ? (body.certificateId as string) : undefined;
    }, 'the certificate');
    const byRecord = await api('GET', `/v1/ledger/records/${outcomeRecordId}/certificate`, { key: firm.key });
    expect(byRecord.status).toBe(200);
    expect(byRecord.body.certificateId).toBe(certificateId);
    const verification = await api('GET', `/v1/verify/${certificateId}`);
    expect(verification.status).toBe(200);
    expect(verification.body.valid).toBe(true);

    // Each subscribed event arrives once, signed, in ledger order.
    const received = await until(
      async () => (deliveries.length >= subscribed.length ? deliveries : undefined),
      'the webhooks',
    );
    expect(badSignatures).toEqual([]);
    const ordered = [...received].sort((a, b) => a.body.sequenceNumber - b.body.sequenceNumber);
    expect(ordered.map((delivery) => delivery.event)).toEqual(subscribed);
    expect(ordered.map((delivery) => delivery.body.eventType)).toEqual(sequence);

    // The outcome record feeds the governance reports.
    const model = await until(async () => {
      const { body } = await api('GET', '/v1/models', { key: firm.key });
      const found = (body.data ?? body) as { provider: string; completedJobs: number; approved: number }[];
      const entry = found.find((m) => m.provider === 'acme-ai');
      return entry && entry.completedJobs === 1 ? entry : undefined;
    }, 'the model report');
    expect(model.approved).toBe(1);
    const explained = await api('GET', `/v1/explainability/${jobId}`, { key: firm.key });
    expect(explained.status).toBe(200);

    // The approval's certificate was issued on its own too.
    const assessmentCertificate = await until(async () => {
      const { body } = await api('GET', assessmentPath, { key: firm.key });
      return typeof body.certificateId === 'string' ? (body.certificateId as string) : undefined;
    }, 'the assessment certificate');
    expect((await api('GET', `/v1/verify/${assessmentCertificate}`)).body.valid).toBe(true);
  });
});
