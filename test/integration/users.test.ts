import { getUser } from '../../shared/store/user-store.js';
import { api, createFirm, linkedUser, seedUser, stackDeps, tokenFor, type TestFirm } from './helpers.js';

const USER_FIELDS = [
  'activatedAt',
  'activeJobId',
  'deactivatedAt',
  'email',
  'fcaRef',
  'id',
  'invitedAt',
  'isAvailable',
  'name',
  'qualifications',
  'role',
  'specialistVulnerability',
].sort();

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let sequence = 0;
/** A fresh e-mail address, unique across runs. */
const email = (label: string) => `${label}-${process.pid}-${++sequence}-${Date.now().toString(36)}@firm.test`;

const newUser = (overrides: Record<string, unknown> = {}) => ({
  name: 'Rita Reviewer',
  email: email('rita'),
  fcaRef: 'ABC12345',
  ...overrides,
});

describe('users', () => {
  let firm: TestFirm;
  let adminToken: string;
  beforeAll(async () => {
    firm = await createFirm();
    adminToken = await tokenFor(firm.firmId, firm.admin.email);
  });

  describe('GET /v1/firm/me/users', () => {
    it('lists the users with exactly the specification fields, never the OIDC subject', async () => {
      // The admin has signed in (adminToken), so the store holds a subject for them.
      expect((await api('GET', '/v1/firm/me', { token: adminToken })).status).toBe(200);
      await linkedUser(firm.firmId, firm.admin.id);
      const { status, body } = await api('GET', '/v1/firm/me/users', { key: firm.key });
      expect(status).toBe(200);
      const admin = body.find((u: { id: string }) => u.id === firm.admin.id);
      expect(Object.keys(admin).sort()).toEqual(USER_FIELDS);
      expect(admin).toMatchObject({
        email: firm.admin.email,
        role: 'FIRM_ADMIN',
        activatedAt: expect.stringMatching(ISO),
        deactivatedAt: null,
      });
      expect(JSON.stringify(body)).not.toMatch(/subject|local\||firmId/);
      expect((await getUser(stackDeps(), firm.firmId, firm.admin.id))?.subject).toBeDefined();
    });

    it('is open to FIRM_ADMIN and LEAD_REVIEWER users and API keys, not to reviewers', async () => {
      const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', email('lead'));
      const reviewer = await seedUser(firm.firmId, 'REVIEWER', email('reviewer'));
      expect((await api('GET', '/v1/firm/me/users', { token: adminToken })).status).toBe(200);
      const asLead = await api('GET', '/v1/firm/me/users', {
        token: await tokenFor(firm.firmId, lead.email),
      });
      expect(asLead.status).toBe(200);
      expect(asLead.body.map((u: { id: string }) => u.id)).toEqual(
        expect.arrayContaining([lead.id, reviewer.id]),
      );
      const asReviewer = await api('GET', '/v1/firm/me/users', {
        token: await tokenFor(firm.firmId, reviewer.email),
      });
      expect([asReviewer.status, asReviewer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('POST /v1/firm/me/users', () => {
    it('creates a reviewer with the defaults (API key), who can then sign in', async () => {
      const input = newUser({ email: email('mixed').replace('mixed', 'MiXeD') });
      const { status, body } = await api('POST', '/v1/firm/me/users', { key: firm.key, body: input });
      expect(status).toBe(201);
      expect(Object.keys(body).sort()).toEqual(USER_FIELDS);
      expect(body).toEqual({
        id: expect.stringMatching(/^usr_[0-9A-HJKMNP-TV-Z]{26}$/),
        name: 'Rita Reviewer',
        email: input.email.toLowerCase(),
        fcaRef: 'ABC12345',
        qualifications: [],
        role: 'REVIEWER',
        isAvailable: true,
        specialistVulnerability: false,
        invitedAt: expect.stringMatching(ISO),
        activatedAt: null,
        deactivatedAt: null,
        activeJobId: null,
      });
      const list = await api('GET', '/v1/firm/me/users', { key: firm.key });
      expect(list.body.find((u: { id: string }) => u.id === body.id)).toEqual(body);

      const token = await tokenFor(firm.firmId, body.email);
      expect((await api('GET', '/v1/firm/me', { token })).status).toBe(200);
      await linkedUser(firm.firmId, body.id); // a read route queues the first sign-in's link
      const after = await api('GET', '/v1/firm/me/users', { key: firm.key });
      expect(after.body.find((u: { id: string }) => u.id === body.id).activatedAt).toMatch(ISO);
    });

    it('lets a signed-in FIRM_ADMIN create any role with every field', async () => {
      for (const role of ['LEAD_REVIEWER', 'FIRM_ADMIN', 'REVIEWER'] as const) {
        const input = newUser({
          role,
          fcaRef: null,
          qualifications: ['CFA', 'DIP_PFS', 'IMC'],
          specialistVulnerability: true,
        });
        const { status, body } = await api('POST', '/v1/firm/me/users', { token: adminToken, body: input });
        expect([role, status]).toEqual([role, 201]);
        expect(body).toMatchObject({
          role,
          fcaRef: null,
          qualifications: ['CFA', 'DIP_PFS', 'IMC'],
          specialistVulnerability: true,
        });
      }
    });

    it('refuses other roles than REVIEWER from an API key (403), and accepts an explicit REVIEWER', async () => {
      for (const role of ['LEAD_REVIEWER', 'FIRM_ADMIN']) {
        const input = newUser({ role });
        const { status, body } = await api('POST', '/v1/firm/me/users', { key: firm.key, body: input });
        expect([role, status, body.error.code]).toEqual([role, 403, 'FORBIDDEN']);
        const list = await api('GET', '/v1/firm/me/users', { key: firm.key });
        expect(list.body.map((u: { email: string }) => u.email)).not.toContain(input.email);
      }
      const reviewer = await api('POST', '/v1/firm/me/users', {
        key: firm.key,
        body: newUser({ role: 'REVIEWER' }),
      });
      expect(reviewer.status).toBe(201);
    });

    it('refuses LEAD_REVIEWER and REVIEWER users (403)', async () => {
      for (const role of ['LEAD_REVIEWER', 'REVIEWER'] as const) {
        const user = await seedUser(firm.firmId, role, email(role.toLowerCase()));
        const token = await tokenFor(firm.firmId, user.email);
        const { status, body } = await api('POST', '/v1/firm/me/users', { token, body: newUser() });
        expect([role, status, body.error.code]).toEqual([role, 403, 'FORBIDDEN']);
      }
    });

    it.each([
      ['no name', { email: 'a@firm.test', fcaRef: 'ABC12345' }, 'body.name'],
      ['an empty name', { name: '  ', email: 'a@firm.test', fcaRef: 'ABC12345' }, 'body.name'],
      ['no email', { name: 'A', fcaRef: 'ABC12345' }, 'body.email'],
      ['a malformed email', { name: 'A', email: 'not-an-email', fcaRef: 'ABC12345' }, 'body.email'],
      ['no fcaRef', { name: 'A', email: 'a@firm.test' }, 'body.fcaRef'],
      ['a lower-case fcaRef', { name: 'A', email: 'a@firm.test', fcaRef: 'abc12345' }, 'body.fcaRef'],
      ['a short fcaRef', { name: 'A', email: 'a@firm.test', fcaRef: 'AB12345' }, 'body.fcaRef'],
      ['a numeric fcaRef', { name: 'A', email: 'a@firm.test', fcaRef: 12345678 }, 'body.fcaRef'],
      [
        'an unknown qualification',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', qualifications: ['CFP', 'MBA'] },
        'body.qualifications.1',
      ],
      [
        'a repeated qualification',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', qualifications: ['CISI', 'CISI'] },
        'body.qualifications.1',
      ],
      [
        'qualifications that are not an array',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', qualifications: 'CFP' },
        'body.qualifications',
      ],
      [
        'an unknown role',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', role: 'OWNER' },
        'body.role',
      ],
      [
        'a non-boolean specialist flag',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', specialistVulnerability: 'yes' },
        'body.specialistVulnerability',
      ],
      [
        'an unknown field',
        { name: 'A', email: 'a@firm.test', fcaRef: 'ABC12345', isAvailable: false },
        'body',
      ],
    ])('refuses %s with 400', async (_label, body, path) => {
      const response = await api('POST', '/v1/firm/me/users', { key: firm.key, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    });

    it('refuses an empty or malformed body with 400', async () => {
      expect((await api('POST', '/v1/firm/me/users', { key: firm.key })).status).toBe(400);
      expect((await api('POST', '/v1/firm/me/users', { key: firm.key, raw: '{"name":' })).status).toBe(400);
      expect((await api('POST', '/v1/firm/me/users', { key: firm.key, body: [] })).status).toBe(400);
    });

    it('keeps e-mails unique within the firm, case-insensitively (409), but not across firms', async () => {
      const address = email('unique');
      expect(
        (await api('POST', '/v1/firm/me/users', { key: firm.key, body: newUser({ email: address }) })).status,
      ).toBe(201);
      for (const variant of [address, address.toUpperCase()]) {
        const { status, body } = await api('POST', '/v1/firm/me/users', {
          token: adminToken,
          body: newUser({ email: variant, name: 'Someone else' }),
        });
        expect([status, body.error.code]).toEqual([409, 'CONFLICT']);
      }
      // The onboarding admin's address is taken too.
      const admin = await api('POST', '/v1/firm/me/users', {
        key: firm.key,
        body: newUser({ email: firm.admin.email }),
      });
      expect(admin.status).toBe(409);

      const other = await createFirm();
      expect(
        (await api('POST', '/v1/firm/me/users', { key: other.key, body: newUser({ email: address }) }))
          .status,
      ).toBe(201);
      const list = await api('GET', '/v1/firm/me/users', { key: firm.key });
      expect(list.body.filter((u: { email: string }) => u.email === address)).toHaveLength(1);
    });

    it('creates exactly one user when the same e-mail is sent concurrently', async () => {
      const address = email('race');
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          api('POST', '/v1/firm/me/users', {
            key: firm.key,
            body: newUser({ email: i % 2 ? address.toUpperCase() : address, name: `Racer ${i}` }),
          }),
        ),
      );
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      for (const r of responses.filter((r) => r.status === 409)) expect(r.body.error.code).toBe('CONFLICT');
      const list = await api('GET', '/v1/firm/me/users', { key: firm.key });
      expect(list.body.filter((u: { email: string }) => u.email === address)).toHaveLength(1);
    });
  });

  describe('POST /v1/firm/me/users/{id}', () => {
    it('sets the specialist flag with an API key or an admin token', async () => {
      const user = await seedUser(firm.firmId, 'REVIEWER', email('specialist'));
      const byKey = await api('POST', `/v1/firm/me/users/${user.id}`, {
        key: firm.key,
        body: { specialistVulnerability: true },
      });
      expect(byKey.status).toBe(200);
      expect(Object.keys(byKey.body).sort()).toEqual(USER_FIELDS);
      expect(byKey.body).toMatchObject({ id: user.id, specialistVulnerability: true, role: 'REVIEWER' });
      const byAdmin = await api('POST', `/v1/firm/me/users/${user.id}`, {
        token: adminToken,
        body: { specialistVulnerability: false },
      });
      expect(byAdmin.body.specialistVulnerability).toBe(false);
      expect((await getUser(stackDeps(), firm.firmId, user.id))?.specialistVulnerability).toBe(false);
      // The same value again changes nothing and still answers 200.
      const again = await api('POST', `/v1/firm/me/users/${user.id}`, {
        key: firm.key,
        body: { specialistVulnerability: false },
      });
      expect([again.status, again.body.specialistVulnerability]).toEqual([200, false]);
    });

    it('changes a role only for a signed-in FIRM_ADMIN; the new role applies to the next request', async () => {
      const user = await seedUser(firm.firmId, 'REVIEWER', email('promoted'));
      const userToken = await tokenFor(firm.firmId, user.email);
      expect((await api('GET', '/v1/firm/me/users', { token: userToken })).status).toBe(403);
      const { status, body } = await api('POST', `/v1/firm/me/users/${user.id}`, {
        token: adminToken,
        body: { role: 'LEAD_REVIEWER', specialistVulnerability: true },
      });
      expect(status).toBe(200);
      expect(body).toMatchObject({ role: 'LEAD_REVIEWER', specialistVulnerability: true });
      expect((await api('GET', '/v1/firm/me/users', { token: userToken })).status).toBe(200);
    });

    it('answers 403 FORBIDDEN to a role field from an API key or a non-admin, changing nothing', async () => {
      const user = await seedUser(firm.firmId, 'REVIEWER', email('not-promoted'));
      for (const body of [
        { role: 'LEAD_REVIEWER' },
        { role: 'REVIEWER' },
        { role: 'FIRM_ADMIN', specialistVulnerability: true },
      ]) {
        const response = await api('POST', `/v1/firm/me/users/${user.id}`, { key: firm.key, body });
        expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
      }
      const lead = await seedUser(firm.firmId, 'LEAD_REVIEWER', email('lead-no-roles'));
      const leadToken = await tokenFor(firm.firmId, lead.email);
      for (const body of [{ role: 'LEAD_REVIEWER' }, { specialistVulnerability: true }]) {
        const response = await api('POST', `/v1/firm/me/users/${user.id}`, { token: leadToken, body });
        expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
      }
      const stored = await getUser(stackDeps(), firm.firmId, user.id);
      expect([stored?.role, stored?.specialistVulnerability]).toEqual(['REVIEWER', false]);
    });

    it.each([
      ['an empty body', {}],
      ['an unknown field', { name: 'New name' }],
      ['an unknown role', { role: 'OWNER' }],
      ['a non-boolean flag', { specialistVulnerability: 'true' }],
    ])('refuses %s with 400', async (_label, body) => {
      const user = await seedUser(firm.firmId, 'REVIEWER', email('bad-update'));
      const response = await api('POST', `/v1/firm/me/users/${user.id}`, { token: adminToken, body });
      expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    });

    it('refuses a missing body with 400', async () => {
      const response = await api('POST', `/v1/firm/me/users/${firm.admin.id}`, { key: firm.key });
      expect(response.status).toBe(400);
    });

    it("answers 404 for an unknown user and for another firm's user, which stays unchanged", async () => {
      const other = await createFirm();
      const theirs = await seedUser(other.firmId, 'REVIEWER', email('theirs'));
      for (const id of ['usr_01JZZZZZZZZZZZZZZZZZZZZZZZ', 'nobody', theirs.id, other.admin.id]) {
        const response = await api('POST', `/v1/firm/me/users/${id}`, {
          token: adminToken,
          body: { specialistVulnerability: true, role: 'REVIEWER' },
        });
        expect([id, response.status, response.body.error.code]).toEqual([id, 404, 'NOT_FOUND']);
      }
      const stored = await getUser(stackDeps(), other.firmId, theirs.id);
      expect(stored?.specialistVulnerability).toBe(false);
      const list = await api('GET', '/v1/firm/me/users', { key: firm.key });
      const ids = list.body.map((u: { id: string }) => u.id);
      expect(ids.filter((id: string) => [theirs.id, other.admin.id].includes(id))).toEqual([]);
    });
  });

  describe('the last active FIRM_ADMIN', () => {
    it('cannot be demoted or deactivated (409); with a second admin it can', async () => {
      const solo = await createFirm();
      const soloToken = await tokenFor(solo.firmId, solo.admin.email);
      const demote = await api('POST', `/v1/firm/me/users/${solo.admin.id}`, {
        token: soloToken,
        body: { role: 'LEAD_REVIEWER' },
      });
      expect([demote.status, demote.body.error.code]).toEqual([409, 'CONFLICT']);
      const deactivate = await api('DELETE', `/v1/firm/me/users/${solo.admin.id}`, { key: solo.key });
      expect([deactivate.status, deactivate.body.error.code]).toEqual([409, 'CONFLICT']);
      // The role field is unchanged when it equals the current role.
      const same = await api('POST', `/v1/firm/me/users/${solo.admin.id}`, {
        token: soloToken,
        body: { role: 'FIRM_ADMIN' },
      });
      expect([same.status, same.body.role]).toEqual([200, 'FIRM_ADMIN']);

      const second = await api('POST', '/v1/firm/me/users', {
        token: soloToken,
        body: newUser({ role: 'FIRM_ADMIN' }),
      });
      expect(second.status).toBe(201);
      const stepDown = await api('POST', `/v1/firm/me/users/${solo.admin.id}`, {
        token: soloToken,
        body: { role: 'REVIEWER' },
      });
      expect([stepDown.status, stepDown.body.role]).toEqual([200, 'REVIEWER']);
      // Now the second admin is the last one.
      const last = await api('DELETE', `/v1/firm/me/users/${second.body.id}`, { key: solo.key });
      expect(last.status).toBe(409);
    });

    it('survives two admins demoting each other at the same time: one wins, one 409', async () => {
      const pair = await createFirm();
      const firstToken = await tokenFor(pair.firmId, pair.admin.email);
      const second = await seedUser(pair.firmId, 'FIRM_ADMIN', email('second-admin'));
      const secondToken = await tokenFor(pair.firmId, second.email);
      const [a, b] = await Promise.all([
        api('POST', `/v1/firm/me/users/${second.id}`, { token: firstToken, body: { role: 'REVIEWER' } }),
        api('POST', `/v1/firm/me/users/${pair.admin.id}`, { token: secondToken, body: { role: 'REVIEWER' } }),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 409]);
      const users = (await api('GET', '/v1/firm/me/users', { key: pair.key })).body as {
        role: string;
        deactivatedAt: string | null;
      }[];
      expect(users.filter((u) => u.role === 'FIRM_ADMIN' && u.deactivatedAt === null)).toHaveLength(1);
    });

    it('survives concurrent deactivations of every admin: exactly one admin stays active', async () => {
      const trio = await createFirm();
      const admins = [
        trio.admin.id,
        (await seedUser(trio.firmId, 'FIRM_ADMIN', email('admin-b'))).id,
        (await seedUser(trio.firmId, 'FIRM_ADMIN', email('admin-c'))).id,
      ];
      const responses = await Promise.all(
        admins.map((id) => api('DELETE', `/v1/firm/me/users/${id}`, { key: trio.key })),
      );
      expect(responses.map((r) => r.status).sort()).toEqual([204, 204, 409]);
      const users = (await api('GET', '/v1/firm/me/users', { key: trio.key })).body as {
        role: string;
        deactivatedAt: string | null;
      }[];
      expect(users.filter((u) => u.role === 'FIRM_ADMIN' && u.deactivatedAt === null)).toHaveLength(1);
    });
  });

  describe('DELETE /v1/firm/me/users/{id}', () => {
    it("deactivates: 204, stamped and unavailable, the user's token refused, idempotent", async () => {
      const created = await api('POST', '/v1/firm/me/users', { key: firm.key, body: newUser() });
      const token = await tokenFor(firm.firmId, created.body.email);
      expect((await api('GET', '/v1/firm/me', { token })).status).toBe(200);

      const response = await api('DELETE', `/v1/firm/me/users/${created.body.id}`, { token: adminToken });
      expect(response.status).toBe(204);
      expect(response.body).toBeUndefined();

      // The token issued before the deactivation, and any later one, is refused.
      const refused = await api('GET', '/v1/firm/me', { token });
      expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(
        (await api('GET', '/v1/firm/me', { token: await tokenFor(firm.firmId, created.body.email) })).status,
      ).toBe(401);

      const listed = (await api('GET', '/v1/firm/me/users', { key: firm.key })).body.find(
        (u: { id: string }) => u.id === created.body.id,
      );
      expect(listed).toMatchObject({ isAvailable: false, deactivatedAt: expect.stringMatching(ISO) });

      const again = await api('DELETE', `/v1/firm/me/users/${created.body.id}`, { key: firm.key });
      expect(again.status).toBe(204);
      const relisted = (await api('GET', '/v1/firm/me/users', { key: firm.key })).body.find(
        (u: { id: string }) => u.id === created.body.id,
      );
      expect(relisted.deactivatedAt).toBe(listed.deactivatedAt);

      // A deactivated user cannot be changed, and keeps their e-mail address.
      const change = await api('POST', `/v1/firm/me/users/${created.body.id}`, {
        key: firm.key,
        body: { specialistVulnerability: true },
      });
      expect([change.status, change.body.error.code]).toEqual([409, 'CONFLICT']);
      const reuse = await api('POST', '/v1/firm/me/users', {
        key: firm.key,
        body: newUser({ email: created.body.email }),
      });
      expect(reuse.status).toBe(409);
    });

    it('refuses to deactivate oneself with 400 VALIDATION_ERROR', async () => {
      const { status, body } = await api('DELETE', `/v1/firm/me/users/${firm.admin.id}`, {
        token: adminToken,
      });
      expect([status, body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      expect((await api('GET', '/v1/firm/me', { token: adminToken })).status).toBe(200);
      await linkedUser(firm.firmId, firm.admin.id);
    });

    it("answers 404 for an unknown user and another firm's user, 403 for a non-admin", async () => {
      const other = await createFirm();
      const theirs = await seedUser(other.firmId, 'REVIEWER', email('theirs-delete'));
      for (const id of ['usr_01JZZZZZZZZZZZZZZZZZZZZZZZ', theirs.id]) {
        const response = await api('DELETE', `/v1/firm/me/users/${id}`, { key: firm.key });
        expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
      }
      expect((await getUser(stackDeps(), other.firmId, theirs.id))?.deactivatedAt).toBeNull();

      const reviewer = await seedUser(firm.firmId, 'REVIEWER', email('reviewer-delete'));
      const target = await seedUser(firm.firmId, 'REVIEWER', email('target'));
      const response = await api('DELETE', `/v1/firm/me/users/${target.id}`, {
        token: await tokenFor(firm.firmId, reviewer.email),
      });
      expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });
});
