/**
 * The Governance Ledger Service's typed client: openapi-fetch over the types openapi-typescript generates from
 * /openapi.json (schema.d.ts, `npm run client:generate`). Every path, parameter, body and answer is typed:
 *
 *   const ledger = createLedgerClient({ baseUrl: 'https://ledger.example.com', apiKey: process.env.GLS_KEY! });
 *   const { data, error } = await ledger.POST('/v1/incidents', { body: { title, description, severity, category } });
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export type LedgerClient = Client<paths>;

/** A firm API key (`gls_…`, sent as X-Service-Key), a signed-in user's token (Bearer), or neither (public calls). */
export type LedgerCredential =
  { apiKey: string; token?: never } | { token: string; apiKey?: never } | { apiKey?: never; token?: never };

export type LedgerClientOptions = LedgerCredential & {
  /** The deployment's base URL, without a trailing slash: `https://ledger.example.com`. */
  baseUrl: string;
  /** Another fetch (a test double, a proxy-aware one); the global fetch by default. */
  fetch?: ClientOptions['fetch'];
  /** Headers sent with every request besides the credential. */
  headers?: Record<string, string>;
};

export function createLedgerClient(options: LedgerClientOptions): LedgerClient {
  const credential: Record<string, string> = options.apiKey
    ? { 'x-service-key': options.apiKey }
    : options.token
      ? { authorization: `Bearer ${options.token}` }
      : {};
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { ...options.headers, ...credential },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
