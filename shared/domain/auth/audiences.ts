/**
 * The token audiences the API accepts, from its OIDC_AUDIENCE setting: one client id, or several separated by
 * commas (in AWS the API's own Cognito app client and the web console's, lib/auth.ts `acceptAudience`).
 * Blank entries are ignored; a setting naming none is a configuration error, never "accept any audience".
 */
export function acceptedAudiences(setting: string): string[] {
  const audiences = setting
    .split(',')
    .map((audience) => audience.trim())
    .filter((audience) => audience !== '');
  if (audiences.length === 0) throw new Error('OIDC audience is empty: name at least one client id');
  return audiences;
}
