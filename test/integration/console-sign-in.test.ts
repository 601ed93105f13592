import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { decodeJwt } from 'jose';
import { ensureConsoleBuilt } from '../support/console.js';
import { api, createFirm, seedUser, stack, type TestFirm } from './helpers.js';

/**
 * The web console's local plumbing (issue 16): the dev issuer's OIDC endpoints (discovery, the e-mail sign-in
 * page, authorization code + PKCE at the token endpoint, logout), the console served at /console/ with its
 * generated config.json and security headers, and GET /v1/firm/me/user (who is signed in).
 */
const CLIENT_ID = 'governance-ledger-api';
const redirectUri = () => `${stack.baseUrl}/console/callback`;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeParams(challenge: string, overrides: Record<string, string> = {}) {
  return new URLSearchParams({
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'state-1',
    nonce: 'nonce-1',
    scope: 'openid email profile',
    ...overrides,
  });
}

/** Submits the sign-in form as the browser would; answers the 302 (or the page). */
async function submitSignIn(
  email: string,
  challenge: string,
  extra: Record<string, string> = {},
  origin = stack.baseUrl,
) {
  const form = authorizeParams(challenge);
  form.set('email', email);
  for (const [name, value] of Object.entries(extra)) form.set(name, value);
  return fetch(`${origin}/dev-issuer/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
    redirect: 'manual',
  });
}

async function codeFor(email: string, challenge: string): Promise<string> {
  const response = await submitSignIn(email, challenge);
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(redirectUri());
  expect(location.searchParams.get('state')).toBe('state-1');
  return location.searchParams.get('code')!;
}

function redeem(
  code: string,
  verifier: string,
  overrides: Record<string, string> = {},
  origin = stack.baseUrl,
) {
  return fetch(`${origin}/dev-issuer/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: CLIENT_ID,
      code_verifier: verifier,
      ...overrides,
    }),
  });
}

describe('the local dev issuer (OIDC authorization code + PKCE for the console)', () => {
  let firm: TestFirm;
  beforeAll(async () => {
    firm = await createFirm();
  });

  it('publishes a discovery document naming its endpoints, S256 and the issuer the API trusts', async () => {
    const response = await fetch(`${stack.baseUrl}/dev-issuer/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: 'urn:governance-ledger:local-dev-issuer',
      authorization_endpoint: `${stack.baseUrl}/dev-issuer/authorize`,
      token_endpoint: `${stack.baseUrl}/dev-issuer/token`,
      jwks_uri: `${stack.baseUrl}/dev-issuer/jwks.json`,
      end_session_endpoint: `${stack.baseUrl}/dev-issuer/logout`,
      code_challenge_methods_supported: ['S256'],
    });
    expect((await fetch(`${stack.baseUrl}/dev-issuer/jwks.json`)).status).toBe(200);
  });

  it('shows a sign-in page marked local development only, with an Email field and a Sign in button', async () => {
    const { challenge } = pkce();
    const response = await fetch(`${stack.baseUrl}/dev-issuer/authorize?${authorizeParams(challenge)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await response.text();
    expect(html).toContain('Local development only');
    expect(html).toMatch(/<label for="email">Email<\/label>/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
  });

  it.each([
    ['an unknown client', { client_id: 'someone-else' }, /client_id/],
    ['a foreign redirect URI', { redirect_uri: 'https://evil.example/callback' }, /redirect_uri/],
    ['no PKCE', { code_challenge_method: 'plain' }, /S256/],
  ])('refuses %s with a page, never a redirect', async (_name, overrides, message) => {
    const { challenge } = pkce();
    const response = await fetch(
      `${stack.baseUrl}/dev-issuer/authorize?${authorizeParams(challenge, overrides)}`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(message);
  });

  it('signs an active user in and mints a token the API accepts, with the nonce in the ID token', async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(firm.admin.email, challenge);
    const response = await redeem(code, verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const tokens = (await response.json()) as { id_token: string; access_token: string; token_type: string };
    expect(tokens.token_type).toBe('Bearer');
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      iss: 'urn:governance-ledger:local-dev-issuer',
      aud: CLIENT_ID,
      sub: `local|${firm.admin.id}`,
      email: firm.admin.email,
      nonce: 'nonce-1',
      'custom:firm_id': firm.firmId,
    });
    const me = await api('GET', '/v1/firm/me/user', { token: tokens.id_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: firm.admin.id, email: firm.admin.email, role: 'FIRM_ADMIN' });
  });

  it('redeems a code once only, with its own verifier and redirect URI', async () => {
    const first = pkce();
    const code = await codeFor(firm.admin.email, first.challenge);
    expect((await redeem(code, pkce().verifier)).status).toBe(400);
    // The failed attempt used it up.
    expect((await redeem(code, first.verifier)).status).toBe(400);
    const second = pkce();
    const other = await codeFor(firm.admin.email, second.challenge);
    const wrongUri = await redeem(other, second.verifier, { redirect_uri: `${stack.baseUrl}/elsewhere` });
    expect(wrongUri.status).toBe(400);
    expect(await wrongUri.json()).toMatchObject({ error: 'invalid_grant' });
    const third = pkce();
    const good = await codeFor(firm.admin.email, third.challenge);
    expect((await redeem(good, third.verifier)).status).toBe(200);
    expect((await redeem(good, third.verifier)).status).toBe(400);
  });

  it('refuses an unknown or deactivated e-mail on the page, without a code', async () => {
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `gone-${Date.now()}@firm.test`);
    const adminToken = await (async () => {
      const { verifier, challenge } = pkce();
      const tokens = (await (await redeem(await codeFor(firm.admin.email, challenge), verifier)).json()) as {
        id_token: string;
      };
      return tokens.id_token;
    })();
    const removed = await api('DELETE', `/v1/firm/me/users/${reviewer.id}`, { token: adminToken });
    expect(removed.status).toBe(204);
    for (const email of [reviewer.email, `nobody-${Date.now()}@firm.test`]) {
      const response = await submitSignIn(email, pkce().challenge);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('No active user has this e-mail address.');
    }
  });

  it('returns to the console after logout, and nowhere else', async () => {
    const home = `${stack.baseUrl}/console/`;
    const back = await fetch(
      `${stack.baseUrl}/dev-issuer/logout?${new URLSearchParams({ post_logout_redirect_uri: home })}`,
      { redirect: 'manual' },
    );
    expect([back.status, back.headers.get('location')]).toEqual([302, home]);
    const elsewhere = await fetch(
      `${stack.baseUrl}/dev-issuer/logout?post_logout_redirect_uri=https%3A%2F%2Fevil.example%2F`,
      { redirect: 'manual' },
    );
    expect([elsewhere.status, elsewhere.headers.get('location')]).toEqual([200, null]);
  });
});

describe('GET /v1/firm/me/user', () => {
  it('answers the signed-in user of any role, and refuses API keys', async () => {
    const firm = await createFirm();
    const reviewer = await seedUser(firm.firmId, 'REVIEWER', `rev-${Date.now()}@firm.test`);
    const { verifier, challenge } = pkce();
    const tokens = (await (await redeem(await codeFor(reviewer.email, challenge), verifier)).json()) as {
      id_token: string;
    };
    const me = await api('GET', '/v1/firm/me/user', { token: tokens.id_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: reviewer.id, role: 'REVIEWER', deactivatedAt: null });
    expect(JSON.stringify(me.body)).not.toMatch(/subject|firmId/);
    expect((await api('GET', '/v1/firm/me/user', { key: firm.key })).status).toBe(403);
    expect((await api('GET', '/v1/firm/me/user')).status).toBe(401);
  });
});

describe('the console at /console/', () => {
  beforeAll(() => ensureConsoleBuilt());

  it('serves the app with a CSP without inline script, no framing, nosniff and no referrer', async () => {
    const response = await fetch(`${stack.baseUrl}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/^default-src 'self'; script-src 'self';/);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    // Every script is an external file: no inline script the CSP would have to allow.
    expect(html).toMatch(/<script type="module" crossorigin src="\/console\/assets\/[^"]+\.js"><\/script>/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it('answers deep links with the app, assets as files, and a missing asset with 404', async () => {
    const deep = await fetch(`${stack.baseUrl}/console/review/jobs/job_123`);
    expect(deep.status).toBe(200);
    const html = await deep.text();
    expect(html).toContain('<div id="root"></div>');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const asset = await fetch(`${stack.baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${stack.baseUrl}/console/assets/missing.js`)).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/console/../package.json`)).status).not.toBe(200);
    const bare = await fetch(`${stack.baseUrl}/console`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/console/']);
  });

  it('serves config.json generated for this server: API, issuer, client and redirect URI', async () => {
    const response = await fetch(`${stack.baseUrl}/console/config.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({
      apiBaseUrl: stack.baseUrl,
      issuer: 'urn:governance-ledger:local-dev-issuer',
      discoveryUrl: `${stack.baseUrl}/dev-issuer/.well-known/openid-configuration`,
      clientId: CLIENT_ID,
      redirectUri: redirectUri(),
      postLogoutRedirectUri: `${stack.baseUrl}/console/`,
      logoutUrl: null,
      localDevelopment: true,
    });
  });
});

/** The same server at 127.0.0.1 (the stack's own URL names localhost): another origin for the browser. */
const loopbackIp = () => stack.baseUrl.replace('//localhost:', '//127.0.0.1:');

/** A GET with a Host header of our choosing (fetch sends the URL's), as a browser at that name would. */
function getWithHost(path: string, host: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${stack.baseUrl}${path}`, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, type: response.headers['content-type'] ?? '', body }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the console and its sign-in at any address of the local stack (issue 33)', () => {
  beforeAll(() => ensureConsoleBuilt());

  it("serves config.json naming the page's own origin: API, discovery, redirect and logout", async () => {
    const origin = loopbackIp();
    const response = await fetch(`${origin}/console/config.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      apiBaseUrl: origin,
      issuer: 'urn:governance-ledger:local-dev-issuer',
      discoveryUrl: `${origin}/dev-issuer/.well-known/openid-configuration`,
      clientId: CLIENT_ID,
      redirectUri: `${origin}/console/callback`,
      postLogoutRedirectUri: `${origin}/console/`,
      logoutUrl: null,
      localDevelopment: true,
    });
  });

  it('publishes the endpoints of the origin asked, with the one issuer identifier of every address', async () => {
    const origin = loopbackIp();
    const doc = (await (
      await fetch(`${origin}/dev-issuer/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: 'urn:governance-ledger:local-dev-issuer',
      authorization_endpoint: `${origin}/dev-issuer/authorize`,
      token_endpoint: `${origin}/dev-issuer/token`,
      jwks_uri: `${origin}/dev-issuer/jwks.json`,
      end_session_endpoint: `${origin}/dev-issuer/logout`,
    });
  });

  it("signs in at 127.0.0.1 with that origin's redirect URI only; the token is the one the API verifies", async () => {
    const firm = await createFirm();
    const origin = loopbackIp();
    const callback = `${origin}/console/callback`;
    // The console at localhost is another origin: its redirect URI is refused on the 127.0.0.1 page.
    const foreign = await submitSignIn(firm.admin.email, pkce().challenge, {}, origin);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain(callback);
    const { verifier, challenge } = pkce();
    const signedIn = await submitSignIn(firm.admin.email, challenge, { redirect_uri: callback }, origin);
    expect(signedIn.status).toBe(302);
    const location = new URL(signedIn.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callback);
    const code = location.searchParams.get('code')!;
    const tokens = (await (await redeem(code, verifier, { redirect_uri: callback }, origin)).json()) as {
      id_token: string;
    };
    // The same iss as at localhost and as `ledgerctl token`: the API verifies one issuer.
    expect(decodeJwt(tokens.id_token)).toMatchObject({ iss: 'urn:governance-ledger:local-dev-issuer' });
    for (const base of [origin, stack.baseUrl]) {
      const me = await fetch(`${base}/v1/firm/me/user`, {
        headers: { authorization: `Bearer ${tokens.id_token}` },
      });
      expect([me.status, ((await me.json()) as { id: string }).id]).toEqual([200, firm.admin.id]);
    }
    const home = `${origin}/console/`;
    const back = await fetch(
      `${origin}/dev-issuer/logout?${new URLSearchParams({ post_logout_redirect_uri: home })}`,
      { redirect: 'manual' },
    );
    expect([back.status, back.headers.get('location')]).toEqual([302, home]);
  });

  it('refuses sign-in at a host name another site could point at this machine, and says how to allow it', async () => {
    const config = await getWithHost('/console/config.json', 'rebound.example:3000');
    expect([config.status, config.type]).toEqual([421, 'text/plain; charset=utf-8']);
    expect(config.body).toContain('ALLOWED_HOSTS');
    const discovery = await getWithHost('/dev-issuer/.well-known/openid-configuration', 'rebound.example');
    expect(discovery.status).toBe(421);
    const page = await getWithHost(
      `/dev-issuer/authorize?${authorizeParams(pkce().challenge)}`,
      'rebound.example',
    );
    expect([page.status, page.body]).toEqual([421, expect.stringContaining('ALLOWED_HOSTS')]);
    // The keys are public and the same everywhere.
    expect((await getWithHost('/dev-issuer/jwks.json', 'rebound.example')).status).toBe(200);
    // A name ending in .localhost always points at this machine: trusted.
    const local = await getWithHost('/console/config.json', 'console.localhost:3000');
    expect(JSON.parse(local.body)).toMatchObject({ apiBaseUrl: 'http://console.localhost:3000' });
  });

  it("lets the review page frame documents from the object store's presigned URLs (the server's own URL)", async () => {
    const csp = (await fetch(`${loopbackIp()}/console/`)).headers.get('content-security-policy')!;
    expect(csp).toContain(`frame-src 'self' ${stack.baseUrl};`);
    expect(csp).toContain("connect-src 'self';");
  });
});
