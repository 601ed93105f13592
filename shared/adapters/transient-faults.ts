/**
 * Which errors of a dependency call are the dependency's fault and may pass (issue 32): the request answers 503
 * with Retry-After for them, never 500. Everything else (a failed condition, a validation error, a missing key)
 * is the caller's to handle and passes through unchanged. Decided by name and shape only, so the same rule holds
 * for the SDK's errors, the local adapters' imitations of them and errors that crossed a worker-thread boundary
 * (which keep only their name and message).
 */

/** Service errors that say "not now" rather than "never": throttling past the SDK's retries, KMS's own faults. */
const TRANSIENT_NAMES = new Set([
  // SDK and network
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'AbortError',
  // DynamoDB
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'InternalServerError',
  'ServiceUnavailable',
  'LimitExceededException',
  // KMS: an internal fault, a dependency (e.g. the HSM) timing out, a key disabled or pending import or deletion
  'KMSInternalException',
  'DependencyTimeoutException',
  'KMSInvalidStateException',
  'DisabledException',
  'KeyUnavailableException',
  // S3
  'InternalError',
  'SlowDown',
  'ServiceUnavailableException',
  // SQS
  'KmsThrottled',
  'RequestThrottled',
  'InternalFailure',
]);

/** Node's codes for a connection that failed or broke (the dependency's process gone or unreachable). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
]);

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
}

/** True when `error` is a dependency's transient fault: a timeout, a broken connection, a 5xx, throttling. */
export function isTransientFault(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const shape = error as ErrorShape;
  if (typeof shape.name === 'string' && TRANSIENT_NAMES.has(shape.name)) return true;
  if (typeof shape.code === 'string' && NETWORK_CODES.has(shape.code)) return true;
  if (shape.$fault === 'server') return true;
  const status = shape.$metadata?.httpStatusCode;
  if (typeof status === 'number' && status >= 500) return true;
  // The SDK wraps some network failures; AggregateError (a refused dual-stack connect) lists them.
  if (error instanceof AggregateError && error.errors.some((inner) => isTransientFault(inner, depth + 1)))
    return true;
  return shape.cause !== undefined && isTransientFault(shape.cause, depth + 1);
}
