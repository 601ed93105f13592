import { useState } from 'react';
import { describeError } from '../app/api';
import { useSession } from '../app/session';
import { ErrorMessage, Page } from '../app/ui';

/** Before sign-in: one button to the issuer's sign-in page (Cognito's hosted UI, or the local dev issuer). */
export function SignInPage() {
  const { signIn, problem } = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <Page title="Governance Ledger console">
      <ErrorMessage error={problem ?? error} />
      <p>Sign in to review advice, watch governance and manage your firm.</p>
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          signIn().catch((failure: unknown) => {
            setError(`Sign-in could not start: ${describeError(failure)}`);
            setBusy(false);
          });
        }}
      >
        Sign in
      </button>
    </Page>
  );
}
