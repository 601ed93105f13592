import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { ArraySlice } from '../services/pages.js';
import { ok, type HttpResult } from './response.js';

/**
 * The answer of a plain-array list (issue 14): the array as the body and, when more items follow, a
 * `Link: <path?query&cursor=…>; rel="next"` header (RFC 8288), a URI reference relative to the request's: the
 * same path and query parameters with the next cursor.
 */
export function arrayAnswer<T>(event: APIGatewayProxyEventV2, slice: ArraySlice<T>): HttpResult {
  if (slice.nextCursor === null) return ok(slice.items);
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {}))
    if (name !== 'cursor' && value !== undefined) params.append(name, value);
  params.append('cursor', slice.nextCursor);
  return { ...ok(slice.items), headers: { link: `<${event.rawPath}?${params.toString()}>; rel="next"` } };
}
