import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { ApiProvider, describeError } from './app/api';
import { loadConfig } from './app/config';
import { Layout } from './app/Layout';
import { discover, type Issuer } from './app/oidc';
import { SessionProvider, useSession } from './app/session';
import { ErrorMessage, Loading } from './app/ui';
import { SignInPage } from './pages/SignInPage';
import './app/console.css';

/** Settings (config.json) and the issuer's discovery document first; then the router and the session. */
function Root() {
  const [issuer, setIssuer] = useState<Issuer | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    loadConfig()
      .then(discover)
      .then(setIssuer, (failure: unknown) =>
        setError(`The console could not start: ${describeError(failure)}`),
      );
  }, []);
  if (error)
    return (
      <main className="centered">
        <h1>Governance Ledger console</h1>
        <ErrorMessage error={error} />
      </main>
    );
  if (!issuer)
    return (
      <main className="centered">
        <Loading label="Starting the console…" />
      </main>
    );
  return (
    <BrowserRouter basename={import.meta.env.BASE_URL.replace(/\/$/, '')}>
      <SessionProvider issuer={issuer}>
        <Console />
      </SessionProvider>
    </BrowserRouter>
  );
}

function Console() {
  const { user, token, apiBaseUrl } = useSession();
  if (!user || !token) return <SignInPage />;
  return (
    <ApiProvider baseUrl={apiBaseUrl} token={token}>
      <Layout user={user} />
    </ApiProvider>
  );
}

// No StrictMode: its doubled effects would read the one-time sign-in callback twice in development.
createRoot(document.getElementById('root')!).render(<Root />);
