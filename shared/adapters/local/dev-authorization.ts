import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Deps } from '../../runtime/deps.js';
import { DEV_AUDIENCE, DEV_FIRM_CLAIM, DEV_ISSUER } from '../../runtime/local-deps.js';
import { getFirm } from '../../store/firm-store.js';
import { getUser, type UserItem } from '../../store/user-store.js';
import type { DevIssuer } from './dev-issuer.js';
import { messagePage, SIGN_IN_PAGE_CSP, signInPage } from './dev-sign-in-page.js';

/**
 * The local stack's OpenID Connect provider for the web console (issue 16): discovery, an authorization
 * endpoint whose page signs in any active user of a firm by e-mail (no password: local development only), a
 * token endpoint (authorization code + PKCE S256, single-use codes valid for a minute, the redirect URI checked
 * against the console's) and an end-session endpoint. Tokens are the ones `ledgerctl token` mints (same issuer,
 * audience, subject and firm claim), so the API accepts them. None of this exists in AWS (Cognito's hosted UI).
 *
 * Any origin (issue 33): the endpoints in discovery, the console's redirect URI and its logout return are those
 * of the origin the browser used (request-origin.ts), while the issuer identifier is the fixed
 * DEV_ISSUER, the same at every address: the `iss` the API verifies, and the one `ledgerctl token` mints.
 */
export const DEV_ISSUER_PREFIX = '/dev-issuer/';
/** The console's OAuth client id locally: the audience the local API verifies. */
export const CONSOLE_CLIENT_ID = DEV_AUDIENCE;
const CODE_TTL_MS = 60_000;
const TOKEN_TTL_SECONDS = 3600;
const MAX_FORM_BYTES = 16 * 1024;

/** The console's addresses at one origin of a local server (the one the browser used). */
export function consoleUrls(origin: string) {
  return {
    home: `${origin}/console/`,
    redirectUri: `${origin}/console/callback`,
    discoveryUrl: `${origin}${DEV_ISSUER_PREFIX}.well-known/openid-configuration`,
  };
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce: string | null;
  user: UserItem;
  expiresAt: number;
}

export interface DevAuthorizationOptions {
  issuer: DevIssuer;
  /** Reads users and firms (DynamoDB Local). */
  deps: Deps;
  /** The origin the browser used, or null when its Host is not trusted (request-origin.ts). */
  originOf: (request: IncomingMessage) => string | null;
  now?: () => number;
}

export function devAuthorizationHandler(
  options: DevAuthorizationOptions,
): (
  request: IncomingMessage,
  response: ServerResponse,
  readBody: (maxBytes: number) => Promise<Buffer | null>,
) => Promise<boolean> {
  const now = options.now ?? Date.now;
  const codes = new Map<string, Grant>();

  return async (request, response, readBody) => {
    if (!request.url?.startsWith(DEV_ISSUER_PREFIX)) return false;
    const url = new URL(request.url, 'http://localhost');
    const path = url.pathname.slice(DEV_ISSUER_PREFIX.length);
    // The keys are the same at every address (the API itself reads them from the server's own URL).
    if (request.method === 'GET' && path === 'jwks.json') return json(response, 200, options.issuer.jwks());
    const base = options.originOf(request);
    if (base === null) {
      await readBody(0);
      const why =
        `The local stack does not trust the address ${request.headers.host ?? '(none)'} for sign-in: open the ` +
        'console at localhost or 127.0.0.1, or add this host name to ALLOWED_HOSTS.';
      return path === 'authorize'
        ? html(response, 421, messagePage('Sign-in refused', why))
        : json(response, 421, { error: 'invalid_request', error_description: why });
    }
    const { redirectUri, home } = consoleUrls(base);
    if (request.method === 'GET' && path === '.well-known/openid-configuration')
      return json(response, 200, {
        issuer: DEV_ISSUER,
        authorization_endpoint: `${base}${DEV_ISSUER_PREFIX}authorize`,
        token_endpoint: `${base}${DEV_ISSUER_PREFIX}token`,
        jwks_uri: `${base}${DEV_ISSUER_PREFIX}jwks.json`,
        end_session_endpoint: `${base}${DEV_ISSUER_PREFIX}logout`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['openid', 'email', 'profile'],
      });
    if (path === 'authorize' && (request.method === 'GET' || request.method === 'POST')) {
      const form =
        request.method === 'POST' ? await readForm(readBody) : (await readBody(0), url.searchParams);
      if (!form) return html(response, 413, messagePage('Sign-in failed', 'The form is too large.'));
      const params = authorizationRequest(form, redirectUri);
      if (typeof params === 'string') return html(response, 400, messagePage('Sign-in failed', params));
      if (request.method === 'GET') return html(response, 200, signInPage({ request: params }));
      const email = (form.get('email') ?? '').trim().toLowerCase();
      const candidates = email ? await activeUsersByEmail(options.deps, email) : [];
      const chosen =
        candidates.length > 1 ? candidates.find((c) => c.user.firmId === form.get('firm')) : null;
      const user = candidates.length === 1 ? candidates[0]!.user : chosen?.user;
      if (!user) {
        const several = candidates.length > 1;
        return html(
          response,
          several ? 200 : 400,
          signInPage({
            request: params,
            email,
            firms: candidates.map((c) => ({ id: c.user.firmId, name: c.firmName })),
            error: several
              ? 'Several firms have an active user with this e-mail: choose the firm.'
              : 'No active user has this e-mail address.',
          }),
        );
      }
      const code = randomBytes(32).toString('base64url');
      codes.set(code, {
        clientId: params.client_id!,
        redirectUri: params.redirect_uri!,
        challenge: params.code_challenge!,
        nonce: params.nonce ?? null,
        user,
        expiresAt: now() + CODE_TTL_MS,
      });
      for (const [old, grant] of codes) if (grant.expiresAt < now()) codes.delete(old);
      const back = new URL(params.redirect_uri!);
      back.searchParams.set('code', code);
      if (params.state) back.searchParams.set('state', params.state);
      response.writeHead(302, { location: back.href, 'cache-control': 'no-store' });
      response.end();
      return true;
    }
    if (path === 'token' && request.method === 'POST') {
      const form = await readForm(readBody);
      if (!form) return tokenError(response, 'invalid_request', 'The request is too large');
      if (form.get('grant_type') !== 'authorization_code')
        return tokenError(response, 'unsupported_grant_type', 'Only authorization_code is supported');
      const code = form.get('code') ?? '';
      const grant = codes.get(code);
      // Single use: the first redemption removes it, whatever its outcome.
      codes.delete(code);
      if (!grant || grant.expiresAt < now())
        return tokenError(response, 'invalid_grant', 'Unknown, used or expired code');
      if (form.get('client_id') !== grant.clientId)
        return tokenError(response, 'invalid_grant', 'The code was issued to another client');
      if (form.get('redirect_uri') !== grant.redirectUri)
        return tokenError(response, 'invalid_grant', 'redirect_uri differs from the authorization request');
      if (!pkceMatches(form.get('code_verifier') ?? '', grant.challenge))
        return tokenError(response, 'invalid_grant', 'code_verifier does not match the code challenge');
      const current = await getUser(options.deps, grant.user.firmId, grant.user.id);
      if (!current || current.deactivatedAt)
        return tokenError(response, 'invalid_grant', 'The user is no longer active');
      const mint = (extra: Record<string, unknown>) =>
        options.issuer.mint({
          issuer: DEV_ISSUER,
          audience: DEV_AUDIENCE,
          subject: `local|${current.id}`,
          email: current.email,
          claims: { [DEV_FIRM_CLAIM]: current.firmId, name: current.name, ...extra },
          ttlSeconds: TOKEN_TTL_SECONDS,
        });
      return json(
        response,
        200,
        {
          access_token: await mint({}),
          id_token: await mint(grant.nonce ? { nonce: grant.nonce } : {}),
          token_type: 'Bearer',
          expires_in: TOKEN_TTL_SECONDS,
          scope: 'openid email profile',
        },
        { 'cache-control': 'no-store', pragma: 'no-cache' },
      );
    }
    if (path === 'logout' && request.method === 'GET') {
      await readBody(0);
      // Nothing to end here (the dev issuer keeps no session); return to the console only, never elsewhere.
      const target = url.searchParams.get('post_logout_redirect_uri');
      if (target === home) {
        response.writeHead(302, { location: home, 'cache-control': 'no-store' });
        response.end();
        return true;
      }
      return html(response, 200, messagePage('Signed out', 'You are signed out of the local console.'));
    }
    await readBody(0);
    return json(response, 404, { error: 'not_found' });
  };
}

/** The authorization request's parameters, or why it is refused (never redirected: the URI is unproven). */
function authorizationRequest(form: URLSearchParams, redirectUri: string): Record<string, string> | string {
  const names = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method'];
  const params: Record<string, string> = {};
  for (const name of [...names, 'state', 'nonce', 'scope']) {
    const value = form.get(name);
    if (value !== null) params[name] = value;
  }
  if (params.client_id !== CONSOLE_CLIENT_ID)
    return `Unknown client_id: this issuer serves the console only.`;
  if (params.redirect_uri !== redirectUri) return `redirect_uri must be the console's, ${redirectUri}.`;
  if (params.response_type !== 'code') return 'response_type must be code.';
  if (params.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge ?? ''))
    return 'A PKCE code_challenge with code_challenge_method S256 is required.';
  return params;
}

function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * Every active user with this e-mail, in any firm. The e-mail is unique within a firm only, and no index spans
 * firms, so this scans the main table: acceptable for a development stack, never done in AWS.
 */
async function activeUsersByEmail(
  deps: Deps,
  email: string,
): Promise<{ user: UserItem; firmName: string }[]> {
  const found: { user: UserItem; firmName: string }[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new ScanCommand({
        TableName: deps.tables.main,
        FilterExpression: 'sk = :sk',
        ExpressionAttributeValues: { ':sk': `USEREMAIL#${email}` },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const firmId = String(item.pk).replace(/^FIRM#/, '');
      const user = await getUser(deps, firmId, item.userId as string);
      if (!user || user.deactivatedAt) continue;
      found.push({ user, firmName: (await getFirm(deps, firmId))?.name ?? firmId });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

async function readForm(readBody: (maxBytes: number) => Promise<Buffer | null>) {
  const body = await readBody(MAX_FORM_BYTES);
  return body === null ? null : new URLSearchParams(body.toString('utf8'));
}

function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): true {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
  return true;
}

function tokenError(response: ServerResponse, error: string, description: string): true {
  return json(response, 400, { error, error_description: description }, { 'cache-control': 'no-store' });
}

function html(response: ServerResponse, status: number, body: string): true {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': SIGN_IN_PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
  });
  response.end(body);
  return true;
}
