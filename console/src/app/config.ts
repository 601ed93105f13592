/**
 * The deployment's settings, generated when the console is served (bin/local.ts locally, for the origin the
 * browser used; the BucketDeployment in lib/console.ts in AWS) and fetched once at start-up from
 * /console/config.json: nothing environment-specific is compiled into the bundle, so one build runs everywhere.
 */
export interface ConsoleConfig {
  /** Base URL of the API, no trailing slash. */
  apiBaseUrl: string;
  /** The OIDC issuer identifier (the `iss` of its ID tokens). */
  issuer: string;
  /** Where the issuer's discovery document lives (`<issuer>/.well-known/openid-configuration` for Cognito). */
  discoveryUrl: string;
  /** The console's OAuth client id: the audience of the ID tokens the API accepts. */
  clientId: string;
  /** This console's callback URL, registered with the issuer. */
  redirectUri: string;
  /** Where the issuer sends the browser after sign-out. */
  postLogoutRedirectUri: string;
  /** The issuer's logout URL when its discovery document names none (Cognito's hosted UI /logout). */
  logoutUrl?: string | null;
  /** The local development issuer (plain HTTP, at the page's own origin); never true in AWS. */
  localDevelopment: boolean;
}

export async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' });
  if (!response.ok) {
    // The local stack says in words why it refuses (an address it does not trust for sign-in).
    const why = response.headers.get('content-type')?.startsWith('text/plain') ? await response.text() : '';
    throw new Error(
      `The console's settings could not be loaded (HTTP ${response.status})${why ? `: ${why}` : ''}`,
    );
  }
  const config = (await response.json()) as ConsoleConfig;
  // The API's stage URL ends with a slash in AWS; paths are appended to it.
  return { ...config, apiBaseUrl: config.apiBaseUrl.replace(/\/+$/, '') };
}
