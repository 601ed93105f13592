import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What a route's function (or the error mapper) answers: a status, an optional body and extra headers. */
export interface HttpResult {
  statusCode: number;
  /**
   * A string is sent as it is (the route sets its content type: text/html, text/plain); bytes (a Uint8Array)
   * are sent as they are, base64-encoded in the Lambda answer as API Gateway requires
   * (application/octet-stream unless the route says otherwise); anything else is sent as JSON.
   */
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * false: never keep this answer for an `Idempotency-Key` replay (it carries a secret the service keeps only
   * hashed, such as a new API key); a retry with the key is told what was written instead (./idempotency.ts).
   */
  replayable?: false;
}

export const ok = (body: unknown): HttpResult => ({ statusCode: 200, body });
export const created = (body: unknown): HttpResult => ({ statusCode: 201, body });
export const accepted = (body: unknown): HttpResult => ({ statusCode: 202, body });
export const noContent = (): HttpResult => ({ statusCode: 204 });

/**
 * Headers every answer carries unless its route sets its own: never sniffed, and never stored by a cache
 * (authenticated answers, answers carrying a secret, key or token, errors). A public answer that may be cached
 * (the signing key, the OpenAPI document) sets its own `cache-control`.
 */
export const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A text answer (`text/plain; charset=utf-8`): checkpoints, proofs, verifier keys. */
export const plainText = (text: string, headers: Record<string, string> = {}): HttpResult => ({
  statusCode: 200,
  body: text,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
});

/** A binary answer (`application/octet-stream`): log tiles. */
export const octets = (bytes: Uint8Array, headers: Record<string, string> = {}): HttpResult => ({
  statusCode: 200,
  body: bytes,
  headers: { 'content-type': 'application/octet-stream', ...headers },
});

/**
 * The one place a response gets its final API Gateway shape, for every success and every error (the error
 * envelope of shared/http/errors.ts comes through here too): the request id and DEFAULT_HEADERS on everything,
 * JSON bodies serialised with their content type, bytes base64-encoded with `isBase64Encoded` (API Gateway
 * decodes them: the client receives the bytes).
 */
export function toApiResponse(result: HttpResult, requestId: string): APIGatewayProxyStructuredResultV2 {
  const own = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const headers = { ...DEFAULT_HEADERS, 'x-request-id': requestId, ...own };
  if (result.body === undefined) return { statusCode: result.statusCode, headers };
  if (typeof result.body === 'string') return { statusCode: result.statusCode, headers, body: result.body };
  if (result.body instanceof Uint8Array)
    return {
      statusCode: result.statusCode,
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength).toString(
        'base64',
      ),
      isBase64Encoded: true,
    };
  return {
    statusCode: result.statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(result.body),
  };
}

/** A HEAD request's answer: the headers of the GET, no body. */
export function withoutBody(response: APIGatewayProxyStructuredResultV2): APIGatewayProxyStructuredResultV2 {
  const { body: _body, isBase64Encoded: _encoded, ...rest } = response;
  return rest;
}
