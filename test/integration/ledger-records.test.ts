import { createHash } from 'node:crypto';
import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { api, createFirm, stackDeps, type TestFirm } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Appends through the ledger core, as the review and governance flows will. */
async function append(
  firm: TestFirm,
  n: number,
  overrides: Partial<Parameters<typeof appendRecord>[1]> = {},
) {
  const deps = stackDeps();
  const records: LedgerRecord[] = [];
  for (let i = 0; i < n; i++) {
    records.push(
      await appendRecord(deps, {
        firmId: firm.firmId,
        eventType: 'DOCUMENT_SUBMITTED',
        actor: { id: 'usr_submitter', name: 'Sam Submitter', fcaRef: 'SAM01234' },
        documentHash: sha(`doc-${i}`),
        documentMetadata: { documentReference: `DOC-${i}` },
        ...overrides,
      }),
    );
  }
  return records;
}

describe('GET /v1/ledger/records', () => {
  let firm: TestFirm;
  let records: LedgerRecord[];
  beforeAll(async () => {
    firm = await createFirm();
    records = await append(firm, 7);
    records.push(
      ...(await append(firm, 2, {
        eventType: 'INCIDENT_LOGGED',
        actor: { id: 'usr_other', name: 'Olive Other', fcaRef: null },
        documentHash: '',
        documentMetadata: { incident: 'x' },
      })),
    );
  });

  it('lists newest first with page metadata by default', async () => {
    const { status, body } = await api('GET', '/v1/ledger/records', { key: firm.key });
    expect(status).toBe(200);
    expect(body.pagination).toEqual({ page: 1, pageSize: 25, total: 9, totalPages: 1, nextCursor: null });
    expect(body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(body.data[8]).toEqual(records[0]);
  });

  it('pages in both orders', async () => {
    const desc = await api('GET', '/v1/ledger/records?page=2&pageSize=4', { key: firm.key });
    expect(desc.body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual([5, 4, 3, 2]);
    expect(desc.body.pagination).toEqual({
      page: 2,
      pageSize: 4,
      total: 9,
      totalPages: 3,
      nextCursor: expect.any(String),
    });
    const asc = await api('GET', '/v1/ledger/records?page=3&pageSize=4&order=asc', { key: firm.key });
    expect(asc.body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual([9]);
    const beyond = await api('GET', '/v1/ledger/records?page=4&pageSize=4', { key: firm.key });
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination.total).toBe(9);
  });

  it('filters by eventType, actorId, documentHash and documentReference', async () => {
    const byType = await api('GET', '/v1/ledger/records?eventType=INCIDENT_LOGGED', { key: firm.key });
    expect(byType.body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual([9, 8]);
    expect(byType.body.pagination.total).toBe(2);
    const byActor = await api('GET', '/v1/ledger/records?actorId=usr_other&order=asc', { key: firm.key });
    expect(byActor.body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual([8, 9]);
    const byHash = await api('GET', `/v1/ledger/records?documentHash=${sha('doc-3')}`, { key: firm.key });
    expect(byHash.body.data).toEqual([records[3]]);
    const byReference = await api('GET', '/v1/ledger/records?documentReference=DOC-5', { key: firm.key });
    expect(byReference.body.data).toEqual([records[5]]);
    const combined = await api(
      'GET',
      '/v1/ledger/records?eventType=INCIDENT_LOGGED&documentReference=DOC-5',
      { key: firm.key },
    );
    expect(combined.body).toEqual({
      data: [],
      pagination: { page: 1, pageSize: 25, total: 0, totalPages: 0, nextCursor: null },
    });
  });

  interface Listed {
    data: LedgerRecord[];
    pagination: { nextCursor: string | null };
  }

  /** Every page of a list, following nextCursor from `first` (a path with its query). */
  async function walk(first: string, key = firm.key): Promise<{ seqs: number[]; pages: number }> {
    const seqs: number[] = [];
    let path: string | null = first;
    let pages = 0;
    while (path !== null) {
      const response: { status: number; body: Listed } = await api<Listed>('GET', path, { key });
      const { status, body } = response;
      expect(status).toBe(200);
      seqs.push(...body.data.map((r: LedgerRecord) => r.sequenceNumber));
      pages++;
      const cursor: string | null = body.pagination.nextCursor;
      path = cursor === null ? null : `${first}&cursor=${encodeURIComponent(cursor)}`;
      expect(pages).toBeLessThan(50);
    }
    return { seqs, pages };
  }

  it.each([
    ['unfiltered, newest first', 'pageSize=2', [9, 8, 7, 6, 5, 4, 3, 2, 1]],
    ['unfiltered, chain order', 'pageSize=4&order=asc', [1, 2, 3, 4, 5, 6, 7, 8, 9]],
    ['by event type', 'pageSize=2&eventType=DOCUMENT_SUBMITTED', [7, 6, 5, 4, 3, 2, 1]],
    ['by actor, chain order', 'pageSize=3&actorId=usr_submitter&order=asc', [1, 2, 3, 4, 5, 6, 7]],
    ['by time window', 'pageSize=2&startDate=2000-01-01T00:00:00Z', [9, 8, 7, 6, 5, 4, 3, 2, 1]],
    ['two equality filters (read budget)', 'pageSize=1&eventType=INCIDENT_LOGGED&actorId=usr_other', [9, 8]],
  ])(
    'walks the whole list by cursor, %s: no duplicates, no gaps, same as one page',
    async (_n, query, expected) => {
      const { seqs, pages } = await walk(`/v1/ledger/records?${query}`);
      expect(seqs).toEqual(expected);
      const whole = await api('GET', `/v1/ledger/records?${query.replace(/pageSize=\d+/, 'pageSize=100')}`, {
        key: firm.key,
      });
      expect(whole.body.data.map((r: LedgerRecord) => r.sequenceNumber)).toEqual(expected);
      expect(pages).toBeGreaterThan(1);
    },
  );

  it('serves the page of a page number and of the cursor alike, and ignores page with a cursor', async () => {
    const first = await api('GET', '/v1/ledger/records?pageSize=3&eventType=DOCUMENT_SUBMITTED', {
      key: firm.key,
    });
    expect(first.body.pagination).toMatchObject({ page: 1, total: null, totalPages: null });
    const cursor = encodeURIComponent(first.body.pagination.nextCursor);
    const byCursor = await api(
      'GET',
      `/v1/ledger/records?pageSize=3&eventType=DOCUMENT_SUBMITTED&page=9&cursor=${cursor}`,
      { key: firm.key },
    );
    const byNumber = await api('GET', '/v1/ledger/records?pageSize=3&eventType=DOCUMENT_SUBMITTED&page=2', {
      key: firm.key,
    });
    expect(byCursor.body.data).toEqual(byNumber.body.data);
    expect(byCursor.body.pagination.page).toBe(2);
    // The page that ends the list knows the total.
    const last = await api('GET', '/v1/ledger/records?pageSize=3&eventType=DOCUMENT_SUBMITTED&page=3', {
      key: firm.key,
    });
    expect(last.body.pagination).toMatchObject({ page: 3, total: 7, totalPages: 3, nextCursor: null });
  });

  it('refuses a cursor of another firm, of another query, or altered, with 400 query.cursor', async () => {
    const other = await createFirm();
    await append(other, 3);
    const mine = await api('GET', '/v1/ledger/records?pageSize=1&eventType=DOCUMENT_SUBMITTED', {
      key: firm.key,
    });
    const cursor: string = mine.body.pagination.nextCursor;
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...body, o: 0 })).toString('base64url');
    for (const [who, query, bad] of [
      [other.key, 'pageSize=1&eventType=DOCUMENT_SUBMITTED', cursor],
      [firm.key, 'pageSize=2&eventType=DOCUMENT_SUBMITTED', cursor],
      [firm.key, 'pageSize=1&eventType=INCIDENT_LOGGED', cursor],
      [firm.key, 'pageSize=1', cursor],
      [firm.key, 'pageSize=1&eventType=DOCUMENT_SUBMITTED', altered],
      [
        firm.key,
        'pageSize=1&eventType=DOCUMENT_SUBMITTED',
        `${cursor.slice(0, 20)}${cursor[20] === 'x' ? 'y' : 'x'}${cursor.slice(21)}`,
      ],
      [firm.key, 'pageSize=1&eventType=DOCUMENT_SUBMITTED', 'garbage'],
    ] as const) {
      const { status, body: error } = await api(
        'GET',
        `/v1/ledger/records?${query}&cursor=${encodeURIComponent(bad)}`,
        {
          key: who,
        },
      );
      expect(status).toBe(400);
      expect(error.error.code).toBe('VALIDATION_ERROR');
      expect(error.error.details.map((d: { path: string }) => d.path)).toEqual(['query.cursor']);
    }
  });

  it('refuses a deep page number of a filtered list (use the cursor), serves it unfiltered', async () => {
    const deep = await api('GET', '/v1/ledger/records?pageSize=10&page=102&eventType=DOCUMENT_SUBMITTED', {
      key: firm.key,
    });
    expect(deep.status).toBe(400);
    expect(deep.body.error.details[0].path).toBe('query.page');
    const unfiltered = await api('GET', '/v1/ledger/records?pageSize=10&page=102', { key: firm.key });
    expect(unfiltered.status).toBe(200);
    expect(unfiltered.body.pagination).toMatchObject({ total: 9, nextCursor: null });
  });

  it('filters by an inclusive time window', async () => {
    const from = records[2]!.timestamp;
    const to = records[4]!.timestamp;
    const { body } = await api('GET', `/v1/ledger/records?startDate=${from}&endDate=${to}&order=asc`, {
      key: firm.key,
    });
    const seqs = body.data.map((r: LedgerRecord) => r.sequenceNumber);
    expect(seqs[0]).toBeLessThanOrEqual(3);
    expect(seqs).toEqual(expect.arrayContaining([3, 4, 5]));
    for (const r of body.data as LedgerRecord[]) expect(r.timestamp >= from && r.timestamp <= to).toBe(true);
    const future = await api('GET', '/v1/ledger/records?startDate=2999-01-01T00:00:00.000Z', {
      key: firm.key,
    });
    expect(future.body.data).toEqual([]);
  });

  it('accepts date bounds in any offset and without milliseconds', async () => {
    const first = new Date(records[0]!.timestamp);
    const hourAhead = new Date(first.getTime() - 1000 + 3600_000)
      .toISOString()
      .replace('Z', '+01:00')
      .replace(/\.\d{3}/, '');
    const { status, body } = await api(
      'GET',
      `/v1/ledger/records?startDate=${encodeURIComponent(hourAhead)}`,
      { key: firm.key },
    );
    expect(status).toBe(200);
    expect(body.pagination.total).toBe(9);
    const noMillis = new Date(first.getTime() + 3600_000).toISOString().replace(/\.\d{3}/, '');
    const later = await api('GET', `/v1/ledger/records?startDate=${noMillis}`, { key: firm.key });
    expect(later.body.pagination.total).toBe(0);
  });

  it.each([
    ['pageSize=0', 'query.pageSize'],
    ['pageSize=101', 'query.pageSize'],
    ['page=0', 'query.page'],
    ['page=abc', 'query.page'],
    ['eventType=NOT_A_TYPE', 'query.eventType'],
    ['startDate=yesterday', 'query.startDate'],
    ['documentHash=xyz', 'query.documentHash'],
    ['order=sideways', 'query.order'],
    ['startDate=2026-02-01T00:00:00Z&endDate=2026-01-01T00:00:00Z', 'query.startDate'],
  ])('refuses ?%s with 400 naming %s', async (query, path) => {
    const { status, body } = await api('GET', `/v1/ledger/records?${query}`, { key: firm.key });
    expect(status).toBe(400);
    expect(body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('never shows another firm its records', async () => {
    const other = await createFirm();
    const { body } = await api('GET', '/v1/ledger/records', { key: other.key });
    expect(body.data).toEqual([]);
    const byHash = await api('GET', `/v1/ledger/records?documentHash=${sha('doc-3')}`, { key: other.key });
    expect(byHash.body.data).toEqual([]);
  });
});

describe('GET /v1/ledger/records/{id}', () => {
  it("returns the firm's record, and 404 for unknown ids and for another firm's record", async () => {
    const firm = await createFirm();
    const other = await createFirm();
    const [record] = await append(firm, 1);
    const found = await api('GET', `/v1/ledger/records/${record!.id}`, { key: firm.key });
    expect(found.status).toBe(200);
    expect(found.body).toEqual(record);
    const unknown = await api('GET', '/v1/ledger/records/rec_01ABCDEFGHJKMNPQRSTVWXYZ00', { key: firm.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const foreign = await api('GET', `/v1/ledger/records/${record!.id}`, { key: other.key });
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain(record!.chainHash);
  });
});
