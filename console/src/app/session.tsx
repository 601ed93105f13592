import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { createLedgerClient, type components } from '../../../clients/typescript/index';
import { dataOrThrow, describeError } from './api';
import { beginSignIn, completeSignIn, signOutUrl, type Issuer, type Tokens } from './oidc';

export type Role = components['schemas']['User']['role'];
export type SessionUser = components['schemas']['User'] & { firmId: string; firmName: string };

export interface Session {
  /** Who is signed in (GET /v1/firm/me/user and /v1/firm/me), or null before sign-in. */
  user: SessionUser | null;
  /** The bearer token for the API (the ID token), in memory only. */
  token: string | null;
  apiBaseUrl: string;
  /** Starts the sign-in redirect; back on this page afterwards. */
  signIn(): Promise<void>;
  /** Forgets the tokens and ends the issuer's session where it has an end-session/logout endpoint. */
  signOut(): void;
  /** Why the last sign-in failed or the session ended, in words; null otherwise. */
  problem: string | null;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession() is used outside <SessionProvider>');
  return session;
}

/** The callback path registered with the issuer (config.redirectUri ends with it). */
export const CALLBACK_PATH = '/callback';

/**
 * Holds the session in React state only: a reload or a new tab starts signed out and signs in again (the
 * issuer's own session, Cognito's hosted UI cookie, makes that one click). Tokens are never stored.
 */
export function SessionProvider(props: { issuer: Issuer; children: ReactNode }) {
  const { issuer } = props;
  const apiBaseUrl = issuer.config.apiBaseUrl;
  const location = useLocation();
  const navigate = useNavigate();
  const [tokens, setTokens] = useState<Tokens | null>(null);
  const [user, setUser] = useState<SessionUser | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(location.pathname === CALLBACK_PATH);

  // Back from the issuer: exchange the code (once: the pending PKCE state is removed on first read).
  useEffect(() => {
    if (location.pathname !== CALLBACK_PATH) return;
    let cancelled = false;
    const callbackUrl = new URL(window.location.href);
    (async () => {
      try {
        const { tokens: fresh, returnTo } = await completeSignIn(issuer, callbackUrl);
        const who = await whoIs(apiBaseUrl, fresh.idToken);
        if (cancelled) return;
        setTokens(fresh);
        setUser(who);
        setProblem(null);
        navigate(returnTo, { replace: true });
      } catch (error) {
        if (cancelled) return;
        setProblem(`Sign-in failed: ${describeError(error)}`);
        navigate('/', { replace: true });
      } finally {
        if (!cancelled) setBusy(false);
      }
    })();
    return () => {
      cancelled = true;
    };
    // Runs once per arrival on the callback path.
  }, [location.pathname === CALLBACK_PATH]);

  // The session ends with the token: the user signs in again rather than meeting 401s.
  useEffect(() => {
    if (!tokens) return;
    const ms = tokens.expiresAt * 1000 - Date.now() - 30_000;
    const timer = setTimeout(
      () => {
        setTokens(null);
        setUser(null);
        setProblem('Your session has ended: sign in again.');
      },
      Math.max(ms, 0),
    );
    return () => clearTimeout(timer);
  }, [tokens]);

  const signIn = useCallback(async () => {
    const here = `${location.pathname}${location.search}`;
    await beginSignIn(issuer, here === CALLBACK_PATH ? '/' : here);
  }, [issuer, location.pathname, location.search]);

  const signOut = useCallback(() => {
    setTokens(null);
    setUser(null);
    setProblem(null);
    const logout = signOutUrl(issuer);
    if (logout) window.location.assign(logout);
    else navigate('/', { replace: true });
  }, [issuer, navigate]);

  const session = useMemo<Session>(
    () => ({ user, token: tokens?.idToken ?? null, apiBaseUrl, signIn, signOut, problem }),
    [user, tokens, apiBaseUrl, signIn, signOut, problem],
  );
  if (busy) return <SigningIn />;
  return <SessionContext.Provider value={session}>{props.children}</SessionContext.Provider>;
}

function SigningIn() {
  return (
    <main className="centered">
      <p role="status">Signing you in…</p>
    </main>
  );
}

async function whoIs(apiBaseUrl: string, token: string): Promise<SessionUser> {
  const api = createLedgerClient({ baseUrl: apiBaseUrl, token });
  const [me, firm] = await Promise.all([api.GET('/v1/firm/me/user'), api.GET('/v1/firm/me')]);
  const user = dataOrThrow(me);
  const { id, name } = dataOrThrow(firm);
  return { ...user, firmId: id, firmName: name };
}
