import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** What a route's function (or the error mapper) answers: a status, an optional body and extra headers. */
export interface HttpResult {
  statusCode: number;
  /** A string is sent as it is (the route sets its content type); anything else is sent as JSON. */
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): HttpResult => ({ statusCode: 200, body });
export const created = (body: unknown): HttpResult => ({ statusCode: 201, body });
export const accepted = (body: unknown): HttpResult => ({ statusCode: 202, body });
export const noContent = (): HttpResult => ({ statusCode: 204 });

/**
 * The one place a response gets its final API Gateway shape, for every success and every error (the error
 * envelope of shared/http/errors.ts comes through here too): the request id header on everything, JSON bodies
 * serialised with their content type.
 */
export function toApiResponse(result: HttpResult, requestId: string): APIGatewayProxyStructuredResultV2 {
  const headers = { 'x-request-id': requestId, ...result.headers };
  if (result.body === undefined) return { statusCode: result.statusCode, headers };
  if (typeof result.body === 'string') return { statusCode: result.statusCode, headers, body: result.body };
  return {
    statusCode: result.statusCode,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(result.body),
  };
}
