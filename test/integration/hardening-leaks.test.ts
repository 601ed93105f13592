import { api, createFirm, seedUser, type TestFirm } from './helpers.js';
import { jobItem, putJobOnly } from './governance-seed.js';

/*
 * Issue 12 part 8: smaller leaks. Explainability presents a job as the job endpoint does (no reviewer user
 * ids, submitter or pending decision); webhook URLs reach only global unicast IPv6.
 */

describe('GET /v1/explainability/{jobId} presents the job like GET /v1/review/jobs/{id}', () => {
  let firm: TestFirm;
  let jobId: string;
  let reviewerId: string;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
    const reviewer = await seedUser(firm.firmId, 'LEAD_REVIEWER', `lead-${Date.now()}@leaks.test`);
    reviewerId = reviewer.id;
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const job = jobItem(firm.firmId, {
      outcome: 'APPROVED',
      completedAt: new Date().toISOString(),
      clientReference: 'CLI-LEAK',
      assignedReviewerId: reviewer.id,
    });
    jobId = job.id;
    // What the workflow keeps on the item besides the interface's fields.
    await putJobOnly({
      ...job,
      submittedBy: { kind: 'user', id: 'usr_submitter' },
      actionLog: [
        { action: 'ASSIGNED', at, role: 'SYSTEM', reviewerId: reviewer.id },
        { action: 'STARTED', at, role: 'LEAD_REVIEWER', reviewerId: reviewer.id },
      ],
      pendingCompletion: null,
      escalatedAt: null,
    } as typeof job);
  });

  it('shows the same job body, with anonymised actions and no internals', async () => {
    const [explained, shown] = await Promise.all([
      api('GET', `/v1/explainability/${jobId}`, { key: firm.key }),
      api('GET', `/v1/review/jobs/${jobId}`, { key: firm.key }),
    ]);
    expect([explained.status, shown.status]).toEqual([200, 200]);
    expect(explained.body.job).toEqual(shown.body);
    for (const internal of ['submittedBy', 'actionLog', 'pendingCompletion', 'escalatedAt'])
      expect(explained.body.job).not.toHaveProperty(internal);
    expect(explained.body.job.reviewActions.map((a: { reviewer: unknown }) => a.reviewer)).toEqual([
      'Reviewer 1',
      'Reviewer 1',
    ]);
    // The reviewer's id appears only where the record names them: the reviewer object and the assignment.
    const text = JSON.stringify(explained.body.job.reviewActions);
    expect(text).not.toContain(reviewerId);
    expect(JSON.stringify(explained.body)).not.toContain('usr_submitter');
  });

  it('presents search results the same way', async () => {
    const search = await api('GET', '/v1/explainability/search?clientReference=CLI-LEAK', { key: firm.key });
    expect(search.status).toBe(200);
    expect(search.body).toHaveLength(1);
    expect(search.body[0].job).not.toHaveProperty('actionLog');
    expect(search.body[0].job).not.toHaveProperty('submittedBy');
    expect(search.body[0].job.reviewActions).toHaveLength(2);
  });
});

describe('webhook URLs reach only global unicast IPv6', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm('BOTH');
  });

  it.each([
    ['https://[::ffff:0:a9fe:a9fe]/in', /global unicast/], // IPv4-translated link-local (metadata)
    ['https://[64:ff9b::a9fe:a9fe]/in', /tunnelling/], // NAT64
    ['https://[2002:a9fe:a9fe::1]/in', /tunnelling/], // 6to4
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/in', /tunnelling/], // Teredo
    ['https://[fd12:3456::1]/in', /private/], // unique local
    ['https://[fe80::1]/in', /link-local/],
    ['https://[ff0e::1]/in', /multicast/],
    ['https://[2001:db8::1]/in', /documentation/],
    ['https://[4000::1]/in', /global unicast/],
  ])('refuses %s with 400', async (url, why) => {
    const response = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url, events: ['job.submitted'] },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual([{ path: 'body.url', message: expect.stringMatching(why) }]);
  });

  it('accepts a global unicast IPv6 address', async () => {
    const response = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'https://[2606:4700:4700::1111]/in', events: ['job.submitted'] },
    });
    expect(response.status).toBe(201);
  });
});
