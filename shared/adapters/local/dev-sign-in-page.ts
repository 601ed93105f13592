/**
 * The HTML of the local dev issuer's sign-in page (shared/adapters/local/dev-authorization.ts): one form, an
 * e-mail field and a Sign in button, plainly marked as local development only. No script, no style: its CSP is
 * `default-src 'none'`.
 */
export interface SignInPageInput {
  /** The authorization request's parameters, carried through the form as hidden fields. */
  request: Record<string, string>;
  email?: string;
  /** Several firms have an active user with this e-mail: the user picks one. */
  firms?: readonly { id: string; name: string }[];
  error?: string;
}

export const SIGN_IN_PAGE_CSP =
  "default-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const escape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

export function signInPage(input: SignInPageInput): string {
  const hidden = Object.entries(input.request)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n      ');
  const firms = input.firms?.length
    ? `<fieldset>
        <legend>Firm</legend>
        ${input.firms
          .map(
            (f, i) =>
              `<div><input type="radio" name="firm" id="firm-${i}" value="${escape(f.id)}"${i === 0 ? ' checked' : ''}>` +
              ` <label for="firm-${i}">${escape(f.name)} (${escape(f.id)})</label></div>`,
          )
          .join('\n        ')}
      </fieldset>`
    : '';
  const error = input.error ? `<p role="alert"><strong>${escape(input.error)}</strong></p>` : '';
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sign in (local development only) · Governance Ledger</title>
</head>
<body>
  <main>
    <h1>Sign in to the Governance Ledger console</h1>
    <p><strong>Local development only.</strong> This page belongs to the embedded stack's development issuer: it
    signs in any active user of a firm by e-mail alone, without a password. It does not exist in AWS, where
    Cognito's hosted UI signs users in.</p>
    ${error}
    <form method="post" action="authorize">
      ${hidden}
      <p>
        <label for="email">Email</label><br>
        <input id="email" name="email" type="email" autocomplete="username" required value="${escape(input.email ?? '')}">
      </p>
      ${firms}
      <p><button type="submit">Sign in</button></p>
    </form>
  </main>
</body>
</html>
`;
}

export function messagePage(title: string, message: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escape(title)} · Governance Ledger (local development)</title></head>
<body><main><h1>${escape(title)}</h1><p>${escape(message)}</p></main></body>
</html>
`;
}
