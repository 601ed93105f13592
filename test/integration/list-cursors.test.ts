/**
 * Cursor pagination of the lists other than records and jobs (issue 14): the plain arrays (report log, impact
 * assessments, certificates) with their `Link: <…>; rel="next"` header, and the webhook delivery log. Every list
 * is walked to its end by cursor and compared with one large page; foreign, other-query and altered cursors are
 * 400 at query.cursor.
 */
import { appendRecord } from '../../shared/ledger-writer/append.js';
import { newId } from '../../shared/ids.js';
import type { DeliveryStatus } from '../../shared/domain/webhooks/delivery.js';
import { issueCertificate } from '../../shared/services/certificate-issue.js';
import { createDelivery } from '../../shared/store/webhook-store.js';
import { api, createFirm, stack, stackDeps, type TestFirm } from './helpers.js';

/** The next URL of a `Link` header, or null. */
function nextLink(headers: Headers): string | null {
  const link = headers.get('link');
  if (link === null) return null;
  const match = /^<([^>]+)>; rel="next"$/.exec(link);
  expect(match).not.toBeNull();
  return match![1]!;
}

/** Follows `Link` rel="next" from `first` to the end: every id in order, and the number of answers. */
async function walkArray(firm: TestFirm, first: string): Promise<{ ids: string[]; answers: number }> {
  const ids: string[] = [];
  let path: string | null = first;
  let answers = 0;
  while (path !== null) {
    const response: { status: number; body: { id: string }[]; headers: Headers } = await api('GET', path, {
      key: firm.key,
    });
    expect(response.status).toBe(200);
    ids.push(...response.body.map((item) => item.id));
    answers++;
    expect(answers).toBeLessThan(20);
    path = nextLink(response.headers);
  }
  return { ids, answers };
}

/** The cursor with one character changed. */
const altered = (cursor: string) => `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;

/** The cursor of a Link URL, and the answers to it under other firms, queries and alterations. */
async function expectCursorBound(firm: TestFirm, other: TestFirm, path: string, otherQuery: string) {
  const first = await api('GET', path, { key: firm.key });
  const link = nextLink(first.headers)!;
  const cursor = new URL(link, stack.baseUrl).searchParams.get('cursor')!;
  const base = path.split('?')[0]!;
  for (const [cred, url] of [
    [other.key, link],
    [firm.key, `${base}?${otherQuery}&cursor=${encodeURIComponent(cursor)}`],
    [
      firm.key,
      `${base}?${new URL(link, stack.baseUrl).search.slice(1).replace(/cursor=[^&]+/, `cursor=${altered(cursor)}`)}`,
    ],
  ] as const) {
    const refused = await api('GET', url, { key: cred });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual(['query.cursor']);
  }
}

let firm: TestFirm;
let other: TestFirm;
beforeAll(async () => {
  [firm, other] = await Promise.all([createFirm('BOTH'), createFirm('BOTH')]);
});

describe('GET /v1/reports (plain array, Link rel="next")', () => {
  beforeAll(async () => {
    for (const type of ['BIAS', 'CONSUMER_DUTY', 'BIAS', 'MODEL_DRIFT', 'BIAS']) {
      const created = await api('POST', '/v1/reports', {
        key: firm.key,
        body: { type, periodFrom: '2026-01-01', periodTo: '2026-01-02' },
      });
      expect(created.status).toBe(201);
    }
  });

  it('walks the log by Link, all and by type, as one large answer has it', async () => {
    const whole = await api('GET', '/v1/reports?limit=100', { key: firm.key });
    expect(whole.headers.get('link')).toBeNull();
    expect(whole.body).toHaveLength(5);
    const walked = await walkArray(firm, '/v1/reports?limit=2');
    expect(walked.ids).toEqual(whole.body.map((e: { id: string }) => e.id));
    expect(walked.answers).toBe(3);
    const bias = await walkArray(firm, '/v1/reports?type=BIAS&limit=1');
    expect(bias.ids).toEqual(
      whole.body.filter((e: { type: string }) => e.type === 'BIAS').map((e: { id: string }) => e.id),
    );
    // The default size is bounded (100).
    expect((await api('GET', '/v1/reports?limit=101', { key: firm.key })).status).toBe(400);
  });

  it('refuses a cursor of another firm, another query or altered', async () => {
    await expectCursorBound(firm, other, '/v1/reports?limit=2', 'limit=3');
  });
});

describe('GET /v1/impact-assessments (plain array, Link rel="next")', () => {
  beforeAll(async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (
          await api('POST', '/v1/impact-assessments', {
            key: firm.key,
            body: { useCase: `use ${i}`, description: 'd' },
          })
        ).status,
      ).toBe(201);
  });

  it('walks the assessments by Link, newest first, as one large answer has them', async () => {
    const whole = await api('GET', '/v1/impact-assessments', { key: firm.key });
    expect(whole.body).toHaveLength(3);
    expect((await walkArray(firm, '/v1/impact-assessments?limit=1')).ids).toEqual(
      whole.body.map((a: { id: string }) => a.id),
    );
  });

  it('refuses a cursor of another firm, another query or altered', async () => {
    await expectCursorBound(firm, other, '/v1/impact-assessments?limit=1', 'limit=2');
  });
});

describe('GET /v1/ledger/certificates (plain array, Link rel="next")', () => {
  beforeAll(async () => {
    const deps = stackDeps();
    for (let i = 0; i < 3; i++) {
      const record = await appendRecord(deps, {
        firmId: firm.firmId,
        eventType: 'DOCUMENT_APPROVED',
        actor: { id: 'usr_cert', name: 'Cert Tester', fcaRef: null },
        documentHash: 'b'.repeat(64),
        documentMetadata: { documentReference: `CERT-${i}` },
      });
      await issueCertificate(
        deps,
        {
          firmId: firm.firmId,
          sequenceNumber: record.sequenceNumber,
          recordId: record.id,
          eventType: record.eventType,
        },
        stack.baseUrl,
      );
    }
  });

  it('walks the certificates by Link, newest first, as one large answer has them', async () => {
    const whole = await api('GET', '/v1/ledger/certificates', { key: firm.key });
    expect(whole.body).toHaveLength(3);
    expect((await walkArray(firm, '/v1/ledger/certificates?limit=2')).ids).toEqual(
      whole.body.map((c: { id: string }) => c.id),
    );
  });

  it('refuses a cursor of another firm, another query or altered', async () => {
    await expectCursorBound(firm, other, '/v1/ledger/certificates?limit=1', 'limit=2');
  });
});

describe('GET /v1/incidents (plain array, Link rel="next")', () => {
  beforeAll(async () => {
    for (let i = 0; i < 3; i++) {
      const created = await api('POST', '/v1/incidents', {
        key: firm.key,
        body: { title: `Incident ${i}`, description: 'd', severity: 'LOW', category: 'OPERATIONAL' },
      });
      expect(created.status).toBe(201);
      const remediation = await api('POST', `/v1/incidents/${created.body.id}/remediations`, {
        key: firm.key,
        body: { description: `Fix ${i}` },
      });
      expect(remediation.status).toBe(201);
    }
  });

  it('walks the incidents by Link, newest first, each with its remediations, as one large answer has them', async () => {
    const whole = await api('GET', '/v1/incidents', { key: firm.key });
    expect(whole.headers.get('link')).toBeNull();
    expect(whole.body).toHaveLength(3);
    expect(whole.body.map((i: { remediations: unknown[] }) => i.remediations.length)).toEqual([1, 1, 1]);
    const walked: { id: string; remediations: unknown[] }[] = [];
    let path: string | null = '/v1/incidents?limit=1';
    while (path !== null) {
      const response: { status: number; body: { id: string; remediations: unknown[] }[]; headers: Headers } =
        await api('GET', path, { key: firm.key });
      expect(response.status).toBe(200);
      walked.push(...response.body);
      expect(walked.length).toBeLessThan(10);
      path = nextLink(response.headers);
    }
    expect(walked).toEqual(whole.body);
    expect((await api('GET', '/v1/incidents?limit=201', { key: firm.key })).status).toBe(400);
  });

  it('refuses a cursor of another firm, another query or altered', async () => {
    await expectCursorBound(firm, other, '/v1/incidents?limit=1', 'limit=2');
  });
});

describe('GET /v1/firm/me/webhooks/{id}/deliveries (paged, cursor)', () => {
  let webhookId: string;
  const statuses: DeliveryStatus[] = [
    'DELIVERED',
    'FAILED',
    'DELIVERED',
    'FAILED',
    'FAILED',
    'DELIVERED',
    'FAILED',
  ];

  beforeAll(async () => {
    const created = await api('POST', '/v1/firm/me/webhooks', {
      key: firm.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['chain.repaired'] },
    });
    expect(created.status).toBe(201);
    webhookId = created.body.id;
    const deps = stackDeps();
    for (const [i, status] of statuses.entries())
      await createDelivery(deps, {
        id: newId('webhookDelivery'),
        firmId: firm.firmId,
        webhookId,
        recordId: newId('record'),
        sequenceNumber: i + 1,
        eventType: 'CHAIN_REPAIRED',
        event: 'chain.repaired',
        body: '{}',
        status,
        token: null,
        leaseUntil: null,
        attempts: 1,
        roundAttempts: 1,
        attemptLog: [],
        lastStatusCode: status === 'DELIVERED' ? 200 : 500,
        lastError: null,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        lastAttemptAt: null,
        nextAttemptAt: null,
        deliveredAt: null,
      });
  });

  async function walk(query: string): Promise<string[]> {
    const ids: string[] = [];
    let path = `/v1/firm/me/webhooks/${webhookId}/deliveries?${query}`;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      const { status, body } = await api('GET', path, { key: firm.key });
      expect(status).toBe(200);
      ids.push(...body.data.map((d: { id: string }) => d.id));
      if (body.pagination.nextCursor === null) return ids;
      path = `/v1/firm/me/webhooks/${webhookId}/deliveries?${query}&cursor=${encodeURIComponent(body.pagination.nextCursor)}`;
    }
  }

  it('walks the log by cursor, all and by status, as one large page has it', async () => {
    const whole = await api('GET', `/v1/firm/me/webhooks/${webhookId}/deliveries?pageSize=100`, {
      key: firm.key,
    });
    expect(whole.body.pagination).toMatchObject({ total: 7, nextCursor: null });
    const all = whole.body.data.map((d: { id: string }) => d.id);
    expect(await walk('pageSize=3')).toEqual(all);
    const failed = whole.body.data
      .filter((d: { status: string }) => d.status === 'FAILED')
      .map((d: { id: string }) => d.id);
    expect(await walk('pageSize=1&status=FAILED')).toEqual(failed);
  });

  it('refuses a cursor of another firm, another query or altered', async () => {
    const first = await api('GET', `/v1/firm/me/webhooks/${webhookId}/deliveries?pageSize=2`, {
      key: firm.key,
    });
    const cursor: string = first.body.pagination.nextCursor;
    const otherHook = await api('POST', '/v1/firm/me/webhooks', {
      key: other.key,
      body: { url: 'http://127.0.0.1:9/hook', events: ['chain.repaired'] },
    });
    for (const [key, path] of [
      [other.key, `/v1/firm/me/webhooks/${otherHook.body.id}/deliveries?pageSize=2&cursor=${cursor}`],
      [firm.key, `/v1/firm/me/webhooks/${webhookId}/deliveries?pageSize=2&status=FAILED&cursor=${cursor}`],
      [firm.key, `/v1/firm/me/webhooks/${webhookId}/deliveries?pageSize=2&cursor=${cursor.slice(1)}`],
    ] as const) {
      const refused = await api('GET', path, { key });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual(['query.cursor']);
    }
  });
});
