import { PLATFORM_DOCUMENT_TYPES } from '../../shared/domain/document-types/platform-defaults.js';
import { findDocumentType } from '../../shared/services/document-types.js';
import { api, createFirm, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

const FIELDS = ['checklistItems', 'createdAt', 'firmId', 'id', 'name', 'slug', 'updatedAt'];
const DEFAULT_SLUGS = PLATFORM_DOCUMENT_TYPES.map((t) => t.slug);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const CUSTOM_ID = /^doctype_[0-9A-HJKMNP-TV-Z]{26}$/;

let sequence = 0;
/** A slug unique to this run. */
const slug = (label: string) => `${label}_${process.pid}_${++sequence}`;

const newType = (overrides: Record<string, unknown> = {}) => ({
  slug: slug('CASHFLOW_PLAN'),
  name: 'Cash-flow plan',
  checklistItems: ['Assumptions are stated and reasonable', 'Stress tests are shown'],
  ...overrides,
});

type Listed = { id: string; firmId: string; slug: string; name: string; checklistItems: string[] };

describe('document types', () => {
  let firm: TestFirm;
  let other: TestFirm;
  let adminToken: string;
  let reviewerToken: string;
  const list = async (who: TestFirm = firm) =>
    (await api('GET', '/v1/firm/me/document-types', { key: who.key })).body as Listed[];

  beforeAll(async () => {
    [firm, other] = await Promise.all([createFirm(), createFirm()]);
    const reviewer = await seedUser(
      firm.firmId,
      'REVIEWER',
      `reviewer-${process.pid}-${Date.now()}@firm.test`,
    );
    [adminToken, reviewerToken] = await Promise.all([
      tokenFor(firm.firmId, firm.admin.email),
      tokenFor(firm.firmId, reviewer.email),
    ]);
  });

  describe('GET /v1/firm/me/document-types', () => {
    it('lists the platform defaults with their checklists to any credential', async () => {
      for (const credential of [{ key: firm.key }, { token: reviewerToken }, { token: adminToken }]) {
        const { status, body } = await api('GET', '/v1/firm/me/document-types', credential);
        expect(status).toBe(200);
        expect(body.map((t: Listed) => t.slug)).toEqual(DEFAULT_SLUGS);
      }
      const [suitability] = await list();
      expect(Object.keys(suitability!).sort()).toEqual(FIELDS);
      expect(suitability).toEqual({
        id: 'doctype_SUITABILITY_REPORT',
        firmId: 'platform',
        slug: 'SUITABILITY_REPORT',
        name: PLATFORM_DOCUMENT_TYPES[0]!.name,
        checklistItems: [...PLATFORM_DOCUMENT_TYPES[0]!.checklistItems],
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      for (const type of await list()) {
        expect(type.checklistItems.length).toBeGreaterThanOrEqual(5);
        expect(type.checklistItems.length).toBeLessThanOrEqual(8);
      }
    });
  });

  describe('POST /v1/firm/me/document-types', () => {
    it('creates a custom type, listed after the defaults', async () => {
      const input = newType();
      const { status, body } = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: input,
      });
      expect(status).toBe(201);
      expect(Object.keys(body).sort()).toEqual(FIELDS);
      expect(body).toEqual({
        id: expect.stringMatching(CUSTOM_ID),
        firmId: firm.firmId,
        ...input,
        createdAt: expect.stringMatching(ISO),
        updatedAt: body.createdAt,
      });
      const listed = await list();
      expect(listed.slice(0, DEFAULT_SLUGS.length).map((t) => t.slug)).toEqual(DEFAULT_SLUGS);
      expect(listed.find((t) => t.slug === input.slug)).toEqual(body);
    });

    it('trims the name and checklist items', async () => {
      const input = newType({ name: '  Trimmed  ', checklistItems: ['  One  ', 'Two '] });
      const { body } = await api('POST', '/v1/firm/me/document-types', { token: adminToken, body: input });
      expect(body).toMatchObject({ name: 'Trimmed', checklistItems: ['One', 'Two'] });
    });

    it.each([
      ['an empty slug', { slug: '' }, 'body.slug'],
      ['a lower-case slug', { slug: 'cashflow_plan' }, 'body.slug'],
      ['a slug with a hyphen', { slug: 'CASH-FLOW' }, 'body.slug'],
      ['a slug with a space', { slug: 'CASH FLOW' }, 'body.slug'],
      ['a slug starting with a digit', { slug: '1ST_MEETING' }, 'body.slug'],
      ['a slug starting with an underscore', { slug: '_HIDDEN' }, 'body.slug'],
      ['a slug over 64 characters', { slug: 'X'.repeat(65) }, 'body.slug'],
      ['a numeric slug', { slug: 42 }, 'body.slug'],
      ['an empty name', { name: '' }, 'body.name'],
      ['a blank name', { name: '   ' }, 'body.name'],
      ['an empty checklist', { checklistItems: [] }, 'body.checklistItems'],
      ['an empty checklist item', { checklistItems: ['Fine', ' '] }, 'body.checklistItems.1'],
      ['a repeated checklist item', { checklistItems: ['Same', 'Same'] }, 'body.checklistItems.1'],
      ['a checklist that is not an array', { checklistItems: 'Check it' }, 'body.checklistItems'],
      ['a non-string checklist item', { checklistItems: [1] }, 'body.checklistItems.0'],
      ['no slug', { slug: undefined }, 'body.slug'],
      ['no name', { name: undefined }, 'body.name'],
      ['no checklist', { checklistItems: undefined }, 'body.checklistItems'],
      ['an unknown field', { firmId: 'platform' }, 'body'],
    ])('refuses %s with 400', async (_label, overrides, path) => {
      const response = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: newType(overrides),
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it('refuses an empty or malformed body with 400', async () => {
      expect((await api('POST', '/v1/firm/me/document-types', { key: firm.key })).status).toBe(400);
      expect((await api('POST', '/v1/firm/me/document-types', { key: firm.key, raw: '{' })).status).toBe(400);
    });

    it('answers 409 CONFLICT for a slug the firm already uses, leaving the first one as it was', async () => {
      const input = newType();
      const first = await api('POST', '/v1/firm/me/document-types', { key: firm.key, body: input });
      const second = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: { ...input, name: 'Second' },
      });
      expect([second.status, second.body.error.code]).toEqual([409, 'CONFLICT']);
      expect((await list()).find((t) => t.slug === input.slug)).toEqual(first.body);
    });

    it.each(DEFAULT_SLUGS)('answers 409 CONFLICT for the platform default slug %s', async (defaultSlug) => {
      const response = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: newType({ slug: defaultSlug }),
      });
      expect([response.status, response.body.error.code]).toEqual([409, 'CONFLICT']);
    });

    it('creates exactly one type when the same slug is sent concurrently', async () => {
      const shared = slug('RACE');
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api('POST', '/v1/firm/me/document-types', {
            key: firm.key,
            body: newType({ slug: shared, name: `Racer ${i}` }),
          }),
        ),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      const winner = responses.find((r) => r.status === 201)!.body;
      expect((await list()).filter((t) => t.slug === shared)).toEqual([winner]);
    });

    it('lets another firm use the same slug; neither sees the other', async () => {
      const input = newType();
      const mine = await api('POST', '/v1/firm/me/document-types', { key: firm.key, body: input });
      const theirs = await api('POST', '/v1/firm/me/document-types', {
        key: other.key,
        body: { ...input, name: 'Theirs' },
      });
      expect([mine.status, theirs.status]).toEqual([201, 201]);
      expect((await list()).find((t) => t.slug === input.slug)?.name).toBe(input.name);
      expect((await list(other)).find((t) => t.slug === input.slug)?.name).toBe('Theirs');
      const onlyTheirs = newType();
      await api('POST', '/v1/firm/me/document-types', { key: other.key, body: onlyTheirs });
      expect((await list()).map((t) => t.slug)).not.toContain(onlyTheirs.slug);
      expect(JSON.stringify(await list())).not.toContain(other.firmId);
    });

    it('refuses non-admin users with 403', async () => {
      const response = await api('POST', '/v1/firm/me/document-types', {
        token: reviewerToken,
        body: newType(),
      });
      expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('PATCH /v1/firm/me/document-types/{slug}', () => {
    it("changes a custom type's name or checklist, keeping the rest", async () => {
      const { body: created } = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: newType(),
      });
      const renamed = await api('PATCH', `/v1/firm/me/document-types/${created.slug}`, {
        key: firm.key,
        body: { name: 'Renamed plan' },
      });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({
        ...created,
        name: 'Renamed plan',
        updatedAt: expect.stringMatching(ISO),
      });
      expect(renamed.body.updatedAt >= created.updatedAt).toBe(true);
      const rechecked = await api('PATCH', `/v1/firm/me/document-types/${created.slug}`, {
        token: adminToken,
        body: { checklistItems: ['Only this'] },
      });
      expect(rechecked.body).toMatchObject({
        id: created.id,
        name: 'Renamed plan',
        checklistItems: ['Only this'],
      });
      expect((await list()).find((t) => t.slug === created.slug)).toEqual(rechecked.body);
    });

    it.each([
      ['an empty body', {}],
      ['an empty name', { name: '' }],
      ['a blank name', { name: ' ' }],
      ['an empty checklist', { checklistItems: [] }],
      ['an empty checklist item', { checklistItems: [''] }],
      ['a repeated checklist item', { checklistItems: ['A', 'A'] }],
      ['a slug in the body', { slug: 'OTHER', name: 'X' }],
    ])('refuses %s with 400', async (_label, body) => {
      for (const target of ['SUITABILITY_REPORT', 'NOT_A_TYPE']) {
        const response = await api('PATCH', `/v1/firm/me/document-types/${target}`, { key: firm.key, body });
        expect([target, response.status, response.body.error.code]).toEqual([
          target,
          400,
          'VALIDATION_ERROR',
        ]);
      }
    });

    it('refuses a missing body with 400', async () => {
      const response = await api('PATCH', '/v1/firm/me/document-types/ANNUAL_REVIEW', { key: firm.key });
      expect(response.status).toBe(400);
    });

    it("answers 404 for an unknown slug and another firm's type", async () => {
      const { body: theirs } = await api('POST', '/v1/firm/me/document-types', {
        key: other.key,
        body: newType(),
      });
      for (const target of ['NOT_A_TYPE', 'suitability_report', 'bad%20slug', theirs.slug]) {
        const response = await api('PATCH', `/v1/firm/me/document-types/${target}`, {
          key: firm.key,
          body: { name: 'Mine now' },
        });
        expect([target, response.status, response.body.error.code]).toEqual([target, 404, 'NOT_FOUND']);
      }
      expect((await list(other)).find((t) => t.slug === theirs.slug)?.name).toBe(theirs.name);
      expect((await list()).map((t) => t.slug)).not.toContain(theirs.slug);
    });

    it("turns a PATCH of a platform default into the firm's own override; other firms keep the default", async () => {
      const defaultChecklist = [
        ...PLATFORM_DOCUMENT_TYPES.find((t) => t.slug === 'ANNUAL_REVIEW')!.checklistItems,
      ];
      const { status, body } = await api('PATCH', '/v1/firm/me/document-types/ANNUAL_REVIEW', {
        token: adminToken,
        body: { name: 'Annual review (our template)' },
      });
      expect(status).toBe(200);
      expect(body).toEqual({
        id: expect.stringMatching(CUSTOM_ID),
        firmId: firm.firmId,
        slug: 'ANNUAL_REVIEW',
        name: 'Annual review (our template)',
        checklistItems: defaultChecklist,
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      // In the default's place in the list, and still only once.
      const listed = await list();
      expect(listed.slice(0, DEFAULT_SLUGS.length).map((t) => t.slug)).toEqual(DEFAULT_SLUGS);
      expect(listed.filter((t) => t.slug === 'ANNUAL_REVIEW')).toEqual([body]);
      // A second PATCH changes the same override.
      const again = await api('PATCH', '/v1/firm/me/document-types/ANNUAL_REVIEW', {
        key: firm.key,
        body: { checklistItems: ['Ongoing charge justified'] },
      });
      expect(again.body).toMatchObject({
        id: body.id,
        name: 'Annual review (our template)',
        checklistItems: ['Ongoing charge justified'],
      });
      // The slug is still not free for POST.
      const post = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: newType({ slug: 'ANNUAL_REVIEW' }),
      });
      expect(post.status).toBe(409);
      // Another firm still sees the platform's version.
      const theirs = (await list(other)).find((t) => t.slug === 'ANNUAL_REVIEW');
      expect(theirs).toMatchObject({
        id: 'doctype_ANNUAL_REVIEW',
        firmId: 'platform',
        checklistItems: defaultChecklist,
      });
    });

    it('creates one override when a default is patched concurrently', async () => {
      const names = Array.from({ length: 6 }, (_, i) => `Protection ${i}`);
      const responses = await Promise.all(
        names.map((name) =>
          api('PATCH', '/v1/firm/me/document-types/PROTECTION_RECOMMENDATION', {
            key: firm.key,
            body: { name },
          }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(names.map(() => 200));
      expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
      const listed = (await list()).filter((t) => t.slug === 'PROTECTION_RECOMMENDATION');
      expect(listed).toHaveLength(1);
      expect(listed[0]!.firmId).toBe(firm.firmId);
      expect(names).toContain(listed[0]!.name);
    });

    it('refuses non-admin users with 403', async () => {
      const response = await api('PATCH', '/v1/firm/me/document-types/SUITABILITY_REPORT', {
        token: reviewerToken,
        body: { name: 'Mine' },
      });
      expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('findDocumentType (for job submission)', () => {
    it("resolves the firm's override or custom type first, then the platform default, else null", async () => {
      const deps = stackDeps();
      const { body: custom } = await api('POST', '/v1/firm/me/document-types', {
        key: firm.key,
        body: newType(),
      });
      await api('PATCH', '/v1/firm/me/document-types/MORTGAGE_RECOMMENDATION', {
        key: firm.key,
        body: { name: 'Mortgage advice (ours)' },
      });
      expect(await findDocumentType(deps, firm.firmId, custom.slug)).toEqual(custom);
      expect((await findDocumentType(deps, firm.firmId, 'MORTGAGE_RECOMMENDATION'))?.name).toBe(
        'Mortgage advice (ours)',
      );
      expect(await findDocumentType(deps, other.firmId, 'MORTGAGE_RECOMMENDATION')).toMatchObject({
        firmId: 'platform',
        id: 'doctype_MORTGAGE_RECOMMENDATION',
      });
      expect(await findDocumentType(deps, other.firmId, custom.slug)).toBeNull();
      expect(await findDocumentType(deps, firm.firmId, 'NO_SUCH_TYPE')).toBeNull();
      expect(await findDocumentType(deps, firm.firmId, 'suitability_report')).toBeNull();
    });
  });
});
