import { SignJWT, generateKeyPair } from 'jose';
import { ROUTES } from '../../shared/routes.js';
import { DEV_AUDIENCE, DEV_FIRM_CLAIM, DEV_ISSUER } from '../../shared/runtime/local-deps.js';
import { readFileSync } from 'node:fs';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { importJWK, type JWK } from 'jose';
import { localPaths } from '../../shared/runtime/local-deps.js';
import { keys } from '../../shared/store/keys.js';
import { getUser } from '../../shared/store/user-store.js';
import { activateFromToken } from '../../shared/services/auth.js';
import {
  api,
  createFirm,
  linkedUser,
  seedUser,
  stack,
  stackDeps,
  tokenFor,
  type TestFirm,
} from './helpers.js';

/** A token signed with the stack's own dev issuer key, with explicit times. */
async function devToken(
  claims: Record<string, unknown>,
  subject: string,
  iat: number,
  exp: number,
): Promise<string> {
  const jwk = JSON.parse(readFileSync(localPaths(stack.dataDir).devIssuerKey, 'utf8')) as JWK;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid! })
    .setIssuer(DEV_ISSUER)
    .setAudience(DEV_AUDIENCE)
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await importJWK(jwk, 'ES256'));
}

const authenticated = ROUTES.filter((r) => r.auth.kind !== 'public');
const concretePath = (path: string) => path.replace(/\{(\w+)\}/g, 'x_$1');

describe('credentials', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
  });

  it.each(authenticated.map((r) => [r.method, r.path] as const))(
    '%s %s answers 401 without a credential',
    async (method, path) => {
      const { status, body } = await api(method, concretePath(path));
      expect(status).toBe(401);
      expect(body.error.code).toBe('UNAUTHORIZED');
    },
  );

  it.each(authenticated.map((r) => [r.method, r.path] as const))(
    '%s %s answers 401 to an unknown API key',
    async (method, path) => {
      const { status } = await api(method, concretePath(path), { key: `gls_${'A'.repeat(43)}` });
      expect(status).toBe(401);
    },
  );

  it('answers 401 to malformed keys and malformed or foreign bearer tokens', async () => {
    expect((await api('GET', '/v1/firm/me', { key: 'not-a-key' })).status).toBe(401);
    expect((await api('GET', '/v1/firm/me', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
    expect((await api('GET', '/v1/firm/me', { token: 'not.a.jwt' })).status).toBe(401);
    // Signed by a key that is not the issuer's.
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ email: firm.admin.email, [DEV_FIRM_CLAIM]: firm.firmId })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(DEV_ISSUER)
      .setAudience(DEV_AUDIENCE)
      .setSubject('local|forged')
      .setExpirationTime('1h')
      .sign(privateKey);
    expect((await api('GET', '/v1/firm/me', { token: forged })).status).toBe(401);
  });

  it('refuses a request that sends both credentials', async () => {
    const token = await tokenFor(firm.firmId, firm.admin.email);
    const { status, body } = await api('GET', '/v1/firm/me', { key: firm.key, token });
    expect(status).toBe(401);
    expect(body.error.message).toMatch(/one credential/);
  });

  it('accepts a user token and stamps activatedAt and the subject on first sign-in (queued by a read route)', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `reviewer-${Date.now()}@firm.test`);
    const token = await tokenFor(firm.firmId, user.email);
    const { status, body } = await api('GET', '/v1/firm/me', { token });
    expect(status).toBe(200);
    expect(body.id).toBe(firm.firmId);
    // A read-only route holds no write on user items: the user-activation worker links the sign-in.
    const stored = await linkedUser(firm.firmId, user.id);
    expect(stored.activatedAt).toEqual(expect.any(String));
    expect(stored.subject).toBe(`local|${user.id}`);
  });

  it('links a first sign-in at once on a route that writes the main table', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `reviewer-w-${Date.now()}@firm.test`);
    const token = await tokenFor(firm.firmId, user.email);
    expect((await api('GET', '/v1/review/queue', { token })).status).toBe(200);
    const stored = await getUser(stackDeps(), firm.firmId, user.id);
    expect(stored?.activatedAt).toEqual(expect.any(String));
    expect(stored?.subject).toBe(`local|${user.id}`);
  });

  it('the user-activation worker links nothing for a token that does not verify', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `reviewer-q-${Date.now()}@firm.test`);
    const now = Math.floor(Date.now() / 1000);
    const claims = { email: user.email, [DEV_FIRM_CLAIM]: firm.firmId };
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer(DEV_ISSUER)
      .setAudience(DEV_AUDIENCE)
      .setSubject('local|attacker')
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign((await generateKeyPair('ES256')).privateKey);
    expect(await activateFromToken(stackDeps(), { token: forged })).toBe(false);
    expect((await getUser(stackDeps(), firm.firmId, user.id))?.subject).toBeUndefined();
  });

  it('finds a linked user by subject after their e-mail changes at the identity provider', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `renamed-${Date.now()}@firm.test`);
    expect((await api('GET', '/v1/firm/me', { token: await tokenFor(firm.firmId, user.email) })).status).toBe(
      200,
    );
    await linkedUser(firm.firmId, user.id);
    const now = Math.floor(Date.now() / 1000);
    const claims = { email: 'new-address@firm.test', [DEV_FIRM_CLAIM]: firm.firmId };
    const renamed = await devToken(claims, `local|${user.id}`, now, now + 600);
    const renamedResponse = await api('GET', '/v1/firm/me', { token: renamed });
    expect([renamedResponse.status, renamedResponse.body.error?.message]).toEqual([200, undefined]);
    // An unlinked subject with an unknown e-mail finds nobody.
    expect(
      (await api('GET', '/v1/firm/me', { token: await devToken(claims, 'local|nobody', now, now + 600) }))
        .status,
    ).toBe(401);
  });

  it('refuses an expired token, a token for another subject and a deactivated user', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `reviewer-exp-${Date.now()}@firm.test`);
    const claims = { email: user.email, [DEV_FIRM_CLAIM]: firm.firmId };
    const now = Math.floor(Date.now() / 1000);
    const expired = await devToken(claims, `local|${user.id}`, now - 600, now - 120);
    expect((await api('GET', '/v1/firm/me', { token: expired })).status).toBe(401);

    expect((await api('GET', '/v1/firm/me', { token: await tokenFor(firm.firmId, user.email) })).status).toBe(
      200,
    );
    await linkedUser(firm.firmId, user.id);
    const otherSubject = await devToken(claims, 'local|someone-else', now, now + 600);
    expect((await api('GET', '/v1/firm/me', { token: otherSubject })).status).toBe(401);

    const deps = stackDeps();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.main,
        Key: keys.user(firm.firmId, user.id),
        UpdateExpression: 'SET deactivatedAt = :at',
        ExpressionAttributeValues: { ':at': new Date().toISOString() },
      }),
    );
    const { status, body } = await api('GET', '/v1/firm/me', {
      token: await tokenFor(firm.firmId, user.email),
    });
    expect(status).toBe(401);
    expect(body.error.code).toBe('UNAUTHORIZED');
  });

  it('answers 403 FORBIDDEN when a user lacks the role', async () => {
    const user = await seedUser(firm.firmId, 'REVIEWER', `reviewer2-${Date.now()}@firm.test`);
    const token = await tokenFor(firm.firmId, user.email);
    for (const [method, path, body] of [
      ['PATCH', '/v1/firm/me/settings', { biasAlertThreshold: 0.3 }],
      ['GET', '/v1/firm/me/api-keys', undefined],
      ['POST', '/v1/firm/me/api-keys', { name: 'nope' }],
      ['DELETE', '/v1/firm/me/api-keys/key_x', undefined],
    ] as const) {
      const response = await api(method, path, { token, body });
      expect([path, response.status, response.body.error?.code]).toEqual([path, 403, 'FORBIDDEN']);
    }
  });

  it('answers 401 to a token whose user is unknown or belongs to another firm', async () => {
    const other = await createFirm();
    const stranger = await seedUser(other.firmId, 'REVIEWER', `stranger-${Date.now()}@firm.test`);
    const token = await tokenFor(other.firmId, stranger.email);
    // Valid token of firm B: it only ever sees firm B.
    expect((await api('GET', '/v1/firm/me', { token })).body.id).toBe(other.firmId);
    // The same e-mail is not a user of firm A: a token naming firm A for it cannot be minted, and ledgerctl says so.
    await expect(tokenFor(firm.firmId, stranger.email)).rejects.toThrow(/No user/);
  });
});
