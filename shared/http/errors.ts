import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isTransientFault } from '../adapters/transient-faults.js';
import { ServiceError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { dependencyBudgets } from '../runtime/config.js';
import { DEPENDENCY_UNAVAILABLE_LOG, logger } from '../runtime/logger.js';
import { toApiResponse, type HttpResult } from './response.js';
import type { RouteMatch } from './route-matcher.js';

/** The one place where error codes become HTTP statuses. */
export const STATUS_OF: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SUBMITTER_CANNOT_REVIEW: 403,
  NOT_FOUND: 404,
  DOCUMENT_NOT_FOUND: 404,
  CONFLICT: 409,
  IMPACT_ASSESSMENT_REQUIRED: 409,
  UNPROCESSABLE: 422,
  PAYLOAD_TOO_LARGE: 413,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_KEY_IN_USE: 409,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
};

export function errorResponse(
  code: ErrorCode,
  message: string,
  requestId: string,
  details?: ErrorDetail[],
  headers?: Record<string, string>,
): APIGatewayProxyStructuredResultV2 {
  const body = { error: { code, message, ...(details ? { details } : {}), requestId } };
  return toApiResponse({ statusCode: STATUS_OF[code], body, headers }, requestId);
}

/**
 * A 503 whose body is not the error envelope but the route's own answer, with Retry-After: GET /health's degraded
 * report, which names the failing dependency (issue 32).
 */
export function unavailableResult(body: unknown): HttpResult {
  return {
    statusCode: STATUS_OF.SERVICE_UNAVAILABLE,
    body,
    headers: { 'retry-after': String(dependencyBudgets().retryAfterSeconds) },
  };
}

/**
 * The answer to a request no route key matches (the local gateway's, and the `$default` function's in AWS):
 * 405 METHOD_NOT_ALLOWED with `Allow` when the path has other methods, else 404 NOT_FOUND.
 */
export function unmatchedResponse(
  match: Exclude<RouteMatch, { kind: 'route' }>,
  method: string,
  path: string,
  requestId: string,
): APIGatewayProxyStructuredResultV2 {
  if (match.kind === 'not-found')
    return errorResponse('NOT_FOUND', `No route for ${method} ${path}`, requestId);
  const allow = match.allow.join(', ');
  return errorResponse(
    'METHOD_NOT_ALLOWED',
    `${method} is not allowed on ${path} (allowed: ${allow})`,
    requestId,
    undefined,
    { allow },
  );
}

/**
 * Maps anything thrown by a handler to the error envelope; unexpected errors are logged and hidden. A dependency's
 * transient fault (a timeout, a lost connection, a 5xx, throttling: shared/adapters/transient-faults.ts) that no
 * bounded adapter turned into DependencyUnavailableError yet is answered the same: 503 SERVICE_UNAVAILABLE with
 * Retry-After, naming no internals (issue 32), never 500.
 */
export function toErrorResponse(error: unknown, requestId: string): APIGatewayProxyStructuredResultV2 {
  if (error instanceof ServiceError)
    return errorResponse(
      error.code,
      error.message,
      requestId,
      error.details,
      error.retryAfterSeconds === null ? undefined : { 'retry-after': String(error.retryAfterSeconds) },
    );
  // @middy/http-json-body-parser reports a body that is not JSON as an HTTP error.
  if (isMiddyJsonError(error))
    return errorResponse('VALIDATION_ERROR', 'Request body is not valid JSON', requestId);
  if (isTransientFault(error)) {
    logger.warn(DEPENDENCY_UNAVAILABLE_LOG, { requestId, error: error as Error });
    const retryAfter = String(dependencyBudgets().retryAfterSeconds);
    return errorResponse(
      'SERVICE_UNAVAILABLE',
      'The service is temporarily unavailable; retry the request',
      requestId,
      undefined,
      { 'retry-after': retryAfter },
    );
  }
  logger.error('Unhandled error', { requestId, error: error as Error });
  return errorResponse('INTERNAL', 'Internal error', requestId);
}

function isMiddyJsonError(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { expose?: boolean }).expose === true &&
    (error.cause as { package?: string } | undefined)?.package === '@middy/http-json-body-parser'
  );
}
