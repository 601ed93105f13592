/**
 * Domain errors. Each carries the public error code of DESIGN.md section 3; the HTTP status is chosen
 * in exactly one place (shared/http/errors.ts). Errors never log themselves.
 */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'SUBMITTER_CANNOT_REVIEW'
  | 'NOT_FOUND'
  | 'DOCUMENT_NOT_FOUND'
  | 'CONFLICT'
  | 'IMPACT_ASSESSMENT_REQUIRED'
  | 'UNPROCESSABLE'
  | 'PAYLOAD_TOO_LARGE'
  | 'METHOD_NOT_ALLOWED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'URI_TOO_LONG'
  | 'HEADERS_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL';

export interface ErrorDetail {
  /** Dotted path of the offending field, e.g. `body.settings.biasAlertThreshold`. */
  path: string;
  message: string;
}

/**
 * Each error names itself with a literal (not `new.target.name`): bundles are minified without keepNames
 * (lib/bundling.ts), which would otherwise rename the classes in logs.
 */
export abstract class ServiceError extends Error {
  abstract readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** When retrying may succeed, in seconds (the answer's `Retry-After`); null when it will not help. */
  readonly retryAfterSeconds: number | null = null;

  constructor(message: string, details?: ErrorDetail[]) {
    super(message);
    this.details = details;
  }
}

export class ValidationError extends ServiceError {
  override readonly name = 'ValidationError';
  readonly code = 'VALIDATION_ERROR';
}
export class UnauthorizedError extends ServiceError {
  override readonly name = 'UnauthorizedError';
  readonly code = 'UNAUTHORIZED';
}
export class ForbiddenError extends ServiceError {
  override readonly name = 'ForbiddenError';
  readonly code = 'FORBIDDEN';
}
export class NotFoundError extends ServiceError {
  override readonly name = 'NotFoundError';
  readonly code = 'NOT_FOUND';
}
export class ConflictError extends ServiceError {
  override readonly name = 'ConflictError';
  readonly code = 'CONFLICT';
}
export class UnprocessableError extends ServiceError {
  override readonly name = 'UnprocessableError';
  readonly code = 'UNPROCESSABLE';
}
export class PayloadTooLargeError extends ServiceError {
  override readonly name = 'PayloadTooLargeError';
  readonly code = 'PAYLOAD_TOO_LARGE';
}
/** A JSON operation was sent a body whose Content-Type is not JSON (`application/json` or a `+json` type). */
export class UnsupportedMediaTypeError extends ServiceError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}
/**
 * Four eyes: the user who submitted a review job may not start, complete or escalate it (403, its own code so a
 * client can tell it from "not your job").
 */
export class SubmitterCannotReviewError extends ServiceError {
  override readonly name = 'SubmitterCannotReviewError';
  readonly code = 'SUBMITTER_CANNOT_REVIEW';
}
/** Job submission: the documentKey does not resolve to an uploaded object of the caller's firm. */
export class DocumentNotFoundError extends ServiceError {
  override readonly name = 'DocumentNotFoundError';
  readonly code = 'DOCUMENT_NOT_FOUND';
}
/** Job submission: the gate is on and no APPROVED impact assessment matches the declared model. */
export class ImpactAssessmentRequiredError extends ServiceError {
  override readonly name = 'ImpactAssessmentRequiredError';
  readonly code = 'IMPACT_ASSESSMENT_REQUIRED';
}
/**
 * A dependency we share with every firm (the signing quota, the firm's sequencer) could not serve the request in
 * time; nothing was written. Retrying after `retryAfterSeconds` is safe.
 */
export class ServiceUnavailableError extends ServiceError {
  override readonly name = 'ServiceUnavailableError';
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
/** The dependencies a request may wait on (issue 32): named in logs, metrics and /health, never in an answer. */
export type Dependency = 'database' | 'signer' | 'objects' | 'queue';

/**
 * A dependency stalled past its time budget or failed with a transient fault (a timeout, a refused connection, a
 * 5xx, throttling past its retries, KMS's internal and dependency faults or a disabled key): the request answers
 * 503 SERVICE_UNAVAILABLE with Retry-After, and the message names no internals. `dependency` and `cause` are for
 * the logs.
 */
export class DependencyUnavailableError extends ServiceUnavailableError {
  constructor(
    readonly dependency: Dependency,
    retryAfterSeconds: number,
    options: { cause?: unknown } = {},
  ) {
    super('The service is temporarily unavailable; retry the request', retryAfterSeconds);
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * The firm has used its ledger-writing limit (docs/architecture.md §5, "Fair per-firm limits"); nothing was
 * written. Retrying after `retryAfterSeconds` may succeed.
 */
export class RateLimitedError extends ServiceError {
  override readonly name = 'RateLimitedError';
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    override readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
/**
 * An `Idempotency-Key` already used by this firm within 24 h for another request (another method, path or
 * body): nothing is done (422).
 */
export class IdempotencyKeyReusedError extends ServiceError {
  override readonly name = 'IdempotencyKeyReusedError';
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
}
/**
 * The request first sent with this `Idempotency-Key` has not answered yet (retry after `retryAfterSeconds`), or
 * it was carried out but its answer could not be kept (`retryAfterSeconds` null: retrying will not help, the
 * message says what was written). Nothing is done (409).
 */
export class IdempotencyKeyInUseError extends ServiceError {
  override readonly name = 'IdempotencyKeyInUseError';
  readonly code = 'IDEMPOTENCY_KEY_IN_USE';
  constructor(
    message: string,
    override readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}
