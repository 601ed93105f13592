import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { unmatchedResponse } from '../../shared/http/errors.js';
import { withoutBody } from '../../shared/http/response.js';
import { createRouteMatcher } from '../../shared/http/route-matcher.js';
import { httpRoutes } from '../../shared/routes.js';

const match = createRouteMatcher(httpRoutes());

/**
 * API Gateway's `$default` route: every request that no route key matches comes here. A path of the route
 * table with another method is 405 METHOD_NOT_ALLOWED with `Allow`; anything else is 404 NOT_FOUND, both in
 * the error envelope (the local gateway answers the same, shared/adapters/local/api-gateway.ts). No
 * credential is read and nothing is touched: the answer depends on the route table alone.
 */
export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const { method } = event.requestContext.http;
  const path = event.rawPath;
  const requestId = event.requestContext.requestId;
  const matched = match(method, path);
  // Only reached when API Gateway matched no route key: should its matching and ours ever disagree, 404.
  const response = unmatchedResponse(
    matched.kind === 'route' ? { kind: 'not-found' } : matched,
    method,
    path,
    requestId,
  );
  return method === 'HEAD' ? withoutBody(response) : response;
}
