import type { Credentials } from '../services/auth.js';

/**
 * The request headers that carry a credential (DESIGN.md, credentials): `X-Service-Key` for a firm's API key,
 * `Authorization: Bearer` for a signed-in user. API Gateway (HTTP API, payload 2.0) and the local gateway give
 * header names in lower case. The only place that knows the names: authentication, the refusal holds and the
 * local instance pool's lanes all read a request's credential through here.
 */
type Headers = Readonly<Record<string, string | undefined>> | undefined;

/** Both credential headers as sent (authentication refuses a request that sends both, or neither). */
export function credentialHeaders(headers: Headers): Credentials {
  return { apiKey: headers?.['x-service-key'], authorization: headers?.authorization };
}

/** The credential a request presents, the API key first, with its kind; undefined when it sends none. */
export function presentedCredential(headers: Headers): { kind: 'key' | 'bearer'; value: string } | undefined {
  const { apiKey, authorization } = credentialHeaders(headers);
  if (apiKey) return { kind: 'key', value: apiKey };
  if (authorization) return { kind: 'bearer', value: authorization };
  return undefined;
}
