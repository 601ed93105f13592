import { randomBytes } from 'node:crypto';
import type { Role } from '../../shared/domain/auth/principal.js';
import { api, createFirm, seedUser, type TestFirm, tokenFor, uploadDocument } from './helpers.js';

/**
 * GET /v1/review/jobs/{id}/document (issue 16): a 5-minute URL of the job's immutable document copy, for the
 * assigned reviewer, lead reviewers and administrators only.
 */
let seq = 0;

async function signedIn(firm: TestFirm, role: Role) {
  seq += 1;
  const email = `${role.toLowerCase()}-doc-${seq}-${Date.now().toString(36)}@firm.test`;
  const user = await seedUser(firm.firmId, role, email);
  const token = await tokenFor(firm.firmId, email);
  return { id: user.id, token };
}

async function submit(firm: TestFirm, bytes: Uint8Array) {
  const documentKey = await uploadDocument({ key: firm.key }, bytes, 'advice.pdf');
  const job = await api('POST', '/v1/review/jobs', {
    key: firm.key,
    body: {
      documentKey,
      documentType: 'SUITABILITY_REPORT',
      clientReference: 'CLI-DOC',
      factFindSummary: { age: 60 },
      documentReference: `DOC-${randomBytes(4).toString('hex')}`,
    },
  });
  expect(job.status).toBe(201);
  return job.body as { id: string; assignedReviewerId: string | null };
}

describe('GET /v1/review/jobs/{id}/document', () => {
  let firm: TestFirm;
  let assigned: { id: string; token: string };
  let other: { id: string; token: string };
  let job: { id: string };
  const bytes = new Uint8Array(randomBytes(2_000));

  beforeAll(async () => {
    firm = await createFirm();
    // The admin is a user too: make them unavailable so routing picks the reviewer.
    const adminToken = await tokenFor(firm.firmId, firm.admin.email);
    expect(
      (await api('POST', '/v1/review/availability', { token: adminToken, body: { isAvailable: false } }))
        .status,
    ).toBe(200);
    assigned = await signedIn(firm, 'REVIEWER');
    expect((await api('GET', '/v1/review/queue', { token: assigned.token })).status).toBe(200);
    job = await submit(firm, bytes);
    expect((await api('GET', `/v1/review/jobs/${job.id}`, { key: firm.key })).body.assignedReviewerId).toBe(
      assigned.id,
    );
    other = await signedIn(firm, 'REVIEWER');
  });

  it("gives the assigned reviewer a 5-minute URL of the document's exact bytes", async () => {
    const before = Date.now();
    const { status, body } = await api('GET', `/v1/review/jobs/${job.id}/document`, {
      token: assigned.token,
    });
    expect(status).toBe(200);
    expect(body.contentType).toBe('application/pdf');
    const expiresIn = Date.parse(body.expiresAt) - before;
    expect(expiresIn).toBeGreaterThan(290_000);
    expect(expiresIn).toBeLessThanOrEqual(301_000);
    const document = await fetch(body.url);
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toBe('application/pdf');
    expect(new Uint8Array(await document.arrayBuffer())).toEqual(bytes);
    // Read-only: the URL cannot write, and a changed key is refused.
    // (No PUT is ever accepted on the immutable bucket: 404 NoSuchBucket, as for a bucket it cannot write.)
    expect((await fetch(body.url, { method: 'PUT', body: 'x' })).status).toBe(404);
    const tampered = body.url.replace(/advice\.pdf/, 'other.pdf');
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('serves lead reviewers and administrators too', async () => {
    const lead = await signedIn(firm, 'LEAD_REVIEWER');
    const admin = await tokenFor(firm.firmId, firm.admin.email);
    for (const token of [lead.token, admin]) {
      const { status, body } = await api('GET', `/v1/review/jobs/${job.id}/document`, { token });
      expect(status).toBe(200);
      expect((await fetch(body.url)).status).toBe(200);
    }
  });

  it('refuses another reviewer of the firm (403) and API keys (403)', async () => {
    const refused = await api('GET', `/v1/review/jobs/${job.id}/document`, { token: other.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(JSON.stringify(refused.body)).not.toContain('local-objects');
    expect((await api('GET', `/v1/review/jobs/${job.id}/document`, { key: firm.key })).status).toBe(403);
  });

  it("answers 404 for another firm's job and an unknown id, never the URL", async () => {
    const stranger = await createFirm();
    const theirAdmin = await tokenFor(stranger.firmId, stranger.admin.email);
    const foreign = await api('GET', `/v1/review/jobs/${job.id}/document`, { token: theirAdmin });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('local-objects');
    const admin = await tokenFor(firm.firmId, firm.admin.email);
    expect(
      (await api('GET', '/v1/review/jobs/job_01ARZ3NDEKTSV4RRFFQ69G5FAV/document', { token: admin })).status,
    ).toBe(404);
    expect((await api('GET', `/v1/review/jobs/${job.id}/document`)).status).toBe(401);
  });
});
