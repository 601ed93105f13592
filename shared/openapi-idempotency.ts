import { takesIdempotencyKey } from './routes/route.js';
import type { RouteDef } from './routes/route.js';

/**
 * How the OpenAPI description states `Idempotency-Key` (issue 19, part 3; docs/architecture.md §4, "Idempotent
 * writes") on every operation that takes it (every authenticated POST and PATCH): a header parameter,
 * `Idempotent-Replayed` on its 2xx answers, and what its 400, 409 and 422 may also mean.
 */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): a token or a quoted string, 1 to 255 printable ASCII characters, e.g. a UUID (malformed: 400). Within 24 h the same key with the same method, path and body (the same firm) answers the first answer again (status and body, the same ids, with `Idempotent-Replayed: true`) and writes nothing; the same key with another request is 422 `IDEMPOTENCY_KEY_REUSED`; while the first request runs, 409 `IDEMPOTENCY_KEY_IN_USE` with `Retry-After`. 2xx and 4xx answers are kept (except 408, 409, 425, 429); after a 5xx, 409 or 429 that wrote nothing the key may be retried. An answer carrying a new API key is never kept: a retry is 409 `IDEMPOTENCY_KEY_IN_USE` saying it was created.',
  schema: { type: 'string', minLength: 1, maxLength: 512 },
};

const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description: '`true` when this is the kept answer of an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** The error statuses an operation that takes the key may answer because of it. */
export const idempotencyErrorStatuses = (route: RouteDef): string[] =>
  takesIdempotencyKey(route) ? ['400', '409', '422'] : [];

/**
 * Adds the key to an operation that takes it (in place, after every other response and header is set); others
 * are left alone.
 */
export function documentIdempotencyKey(
  route: RouteDef,
  parameters: unknown[],
  responses: Record<string, Record<string, unknown>>,
): void {
  if (!takesIdempotencyKey(route)) return;
  parameters.push(IDEMPOTENCY_KEY_PARAMETER);
  for (const [status, response] of Object.entries(responses))
    if (status.startsWith('2'))
      response.headers = { ...(response.headers as Record<string, unknown> | undefined), ...REPLAYED_HEADER };
  const describe = (status: string, code: string, meaning: string) => {
    const response = responses[status]!;
    if (!String(response.description).includes(code)) response.description += `; or ${code}: ${meaning}`;
  };
  describe(
    '409',
    'IDEMPOTENCY_KEY_IN_USE',
    'a request with the same Idempotency-Key is still running (with Retry-After) or was carried out without a kept answer',
  );
  describe('422', 'IDEMPOTENCY_KEY_REUSED', 'the Idempotency-Key was used for another request');
}
