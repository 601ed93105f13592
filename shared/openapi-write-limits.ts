import type { RouteDef } from './routes/route.js';
import { isLimitedRoute, WRITE_POLICY_NAME } from './http/rate-limit.js';

/**
 * How the OpenAPI description states the per-firm limit of ledger-writing requests (docs/architecture.md §5,
 * "Fair per-firm limits"): on each limited operation, a sentence in its description, RateLimit-Policy and
 * RateLimit on its answers (all but 401 and 403, which come before the check), and a 429 RATE_LIMITED with
 * Retry-After.
 */
export const WRITE_LIMITS_SEMANTICS = `Operations that append ledger records are limited per firm (all of its credentials together): each takes a token from the firm's bucket and, when none is left, is answered 429 \`RATE_LIMITED\` with \`Retry-After\` (seconds), nothing written. A firm also has at most a few such requests in flight at once (its plan's concurrency: 1 per 10/s of rate); one more is answered 429 \`RATE_LIMITED\` with \`Retry-After: 1\`, no token taken. After a 429, the same credential may be refused until its \`Retry-After\` has passed. Their answers carry \`RateLimit-Policy\` and \`RateLimit\` (draft-ietf-httpapi-ratelimit-headers): \`"${WRITE_POLICY_NAME}";q=<burst>;w=<seconds to refill>\` and \`"${WRITE_POLICY_NAME}";r=<tokens left>;t=<seconds to the next token>\`.`;

const integerSeconds = { type: 'integer', minimum: 1 };
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    description: `The firm's ledger-writing policy: \`"${WRITE_POLICY_NAME}";q=<burst>;w=<seconds a drained bucket takes to refill>\``,
    schema: { type: 'string' },
  },
  RateLimit: {
    description: `The firm's ledger-writing limit now: \`"${WRITE_POLICY_NAME}";r=<whole tokens left>;t=<seconds until the next token>\``,
    schema: { type: 'string' },
  },
};

/** Adds the limit to a limited route's operation description and responses (in place); others are left alone. */
export function documentWriteLimit(
  route: RouteDef,
  responses: Record<string, Record<string, unknown>>,
  errorBody: Record<string, unknown>,
): string | undefined {
  if (!isLimitedRoute(route)) return route.description;
  // Every answer after the check carries the headers; 401 and 403 come before it (authentication, roles).
  for (const [status, response] of Object.entries(responses))
    if (status !== '401' && status !== '403') response.headers = { ...RATE_LIMIT_HEADERS };
  responses['429'] = {
    description:
      "The firm's ledger-writing limit is used up, or as many of its ledger-writing requests as its plan allows are in flight (`RATE_LIMITED`; nothing written), or stage throttling: retry after `Retry-After` seconds",
    headers: {
      'Retry-After': { description: 'Seconds to wait before retrying', schema: integerSeconds },
      ...RATE_LIMIT_HEADERS,
    },
    content: { 'application/json': { schema: errorBody } },
  };
  const note =
    'Limited per firm (ledger-writing): 429 `RATE_LIMITED` with `Retry-After` when the firm is over its limit or has too many such requests in flight.';
  return route.description ? `${route.description} ${note}` : note;
}
