import * as oauth from 'oauth4webapi';
import type { ConsoleConfig } from './config';
import { pkceChallenge } from './pkce';

/**
 * OpenID Connect authorization code flow with PKCE (S256), through oauth4webapi: Cognito's hosted UI in AWS,
 * the local stack's development issuer locally (/dev-issuer/authorize). A public client: no secret.
 *
 * The only thing kept outside memory is the PKCE verifier, state and nonce, in sessionStorage for the length of
 * the redirect to the issuer and back (the page is unloaded in between; every browser SPA does this). They are
 * removed as soon as the callback is read. Tokens are never written to any storage.
 */
const PENDING_KEY = 'gls-console-oidc-pending';

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
  /** The console path to return to after sign-in. */
  returnTo: string;
}

export interface Tokens {
  /** Sent to the API as the bearer token: its `aud` is the console's client id, as the API expects. */
  idToken: string;
  /** Seconds since the epoch when the ID token expires. */
  expiresAt: number;
}

export interface Issuer {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  config: ConsoleConfig;
}

function options(config: ConsoleConfig) {
  // The local issuer is plain HTTP (at the page's own origin); everywhere else oauth4webapi insists on HTTPS.
  return config.localDevelopment ? { [oauth.allowInsecureRequests]: true } : {};
}

export async function discover(config: ConsoleConfig): Promise<Issuer> {
  const response = await fetch(config.discoveryUrl);
  const as = await oauth.processDiscoveryResponse(new URL(config.issuer), response);
  return { as, client: { client_id: config.clientId }, config };
}

/** Sends the browser to the issuer's sign-in page. */
export async function beginSignIn(issuer: Issuer, returnTo: string): Promise<never> {
  const { as, client, config } = issuer;
  if (!as.authorization_endpoint) throw new Error('The issuer has no authorization endpoint');
  const pending: Pending = {
    verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    returnTo,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', config.redirectUri);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', 'openid email profile');
  url.searchParams.set('code_challenge', pkceChallenge(pending.verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('state', pending.state);
  url.searchParams.set('nonce', pending.nonce);
  window.location.assign(url.href);
  return new Promise<never>(() => undefined);
}

/** Reads the issuer's answer on the callback URL and exchanges the code for tokens. */
export async function completeSignIn(
  issuer: Issuer,
  callbackUrl: URL,
): Promise<{ tokens: Tokens; returnTo: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) throw new Error('This sign-in was not started here (or was already used): please sign in again.');
  const pending = JSON.parse(raw) as Pending;
  const { as, client, config } = issuer;
  const parameters = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    parameters,
    config.redirectUri,
    pending.verifier,
    options(config),
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  const claims = oauth.getValidatedIdTokenClaims(result);
  if (!result.id_token || !claims) throw new Error('The issuer returned no ID token');
  return { tokens: { idToken: result.id_token, expiresAt: claims.exp }, returnTo: pending.returnTo };
}

/** The issuer's logout URL (Cognito's /logout, the dev issuer's end-session endpoint), if it has one. */
export function signOutUrl(issuer: Issuer): string | null {
  // Cognito's discovery document names no end-session endpoint: config.json carries its /logout URL.
  const endpoint = issuer.config.logoutUrl ?? issuer.as.end_session_endpoint;
  if (!endpoint) return null;
  const url = new URL(endpoint);
  url.searchParams.set('client_id', issuer.client.client_id);
  url.searchParams.set('post_logout_redirect_uri', issuer.config.postLogoutRedirectUri);
  // Cognito's /logout names the return address logout_uri.
  url.searchParams.set('logout_uri', issuer.config.postLogoutRedirectUri);
  return url.href;
}
