import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { Principal } from '../domain/auth/principal.js';
import {
  ForbiddenError,
  PayloadTooLargeError,
  UnprocessableError,
  UnsupportedMediaTypeError,
} from '../errors.js';
import type { AuthMode, RouteDef } from '../routes/route.js';
import { getDeps, type Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import '../runtime/aws-deps.js';
import { authenticate, type FirstSignIn } from '../services/auth.js';
import { credentialHeaders } from './credential-headers.js';
import { toErrorResponse } from './errors.js';
import { runIdempotently } from './idempotency.js';
import { isJsonMediaType } from './media-type.js';
import {
  limitFirmWrites,
  refuseHeldCredential,
  releaseWriteSlot,
  runWithWriteSlot,
  withRateLimitHeaders,
} from './rate-limit.js';
import { toApiResponse, withoutBody, type HttpResult } from './response.js';
import { parsePart } from './validation.js';

/** Largest JSON request body accepted (documents themselves go to object storage, never through the API). */
export const MAX_JSON_BODY_BYTES = 256 * 1024;

/**
 * Largest response body sent. Lambda cannot return more than 6 MB (6,291,456 bytes) of response payload, and
 * the body travels JSON-escaped inside it, so stop well below: a larger body is answered 422 in the envelope
 * (narrow the request) instead of failing at the platform with an opaque 502.
 */
export const MAX_RESPONSE_BODY_BYTES = 5 * 1024 * 1024;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerRequest<P, Q, B, A extends AuthMode> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  principal: A extends { kind: 'public' } ? null : Principal;
  deps: Deps;
  requestId: string;
  event: APIGatewayProxyEventV2;
}

type Event = APIGatewayProxyEventV2 & { body?: unknown };

/**
 * Builds a route's Lambda handler: authentication and role checks from the route table (first, so a request
 * without a valid credential is 401 whatever its body), the body's size and media type (a route with a body
 * schema takes only JSON: 415 otherwise; a route without one ignores any body), JSON body parsing (middy), zod
 * validation of params, query and body, then the route's function; every error becomes the error envelope in
 * one place. A ledger-writing route checks the firm's write limits right after authentication, and a refusal
 * this instance already holds for the credential before it; a slot taken under the firm's concurrency cap is
 * given back by the request's first ledger append, or else once the answer, success or error, is built
 * (rate-limit.ts).
 * A HEAD request (routes with `head`) gets the GET's answer without its body.
 */
export function defineHandler<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  A extends AuthMode,
>(route: RouteDef<P, Q, B, A>, fn: (request: HandlerRequest<P, Q, B, A>) => Promise<HttpResult>) {
  // Any content type is parsed as JSON (the option exists at runtime; its typings lag behind).
  const parseJson = httpJsonBodyParser({ disableContentTypeCheck: true } as Parameters<
    typeof httpJsonBodyParser
  >[0]);
  // The caller, resolved before the body is parsed: an unauthenticated request is 401 whatever its body.
  const principals = new WeakMap<object, Principal | null>();
  return middy<Event, APIGatewayProxyStructuredResultV2, Error, Context>()
    .before(async (request) => {
      const { event } = request;
      // A credential this instance already refused on this route, until its Retry-After: 429, nothing read.
      refuseHeldCredential(getDeps(), route, event);
      const principal =
        route.auth.kind === 'public'
          ? null
          : // A route that writes the main table links a first sign-in itself; others queue it.
            await authorise(
              getDeps(),
              event,
              route.auth,
              route.permissions.main === 'write' ? 'link' : 'queue',
            );
      principals.set(event, principal);
      // The firm's ledger-writing limit: after authentication, before the body is read or acted on.
      await limitFirmWrites(getDeps(), route, principal, event);
      const raw = event.body;
      if (typeof raw !== 'string' || raw.length === 0 || !route.request.body) {
        event.body = undefined;
        return;
      }
      const size = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw);
      if (size > MAX_JSON_BODY_BYTES)
        throw new PayloadTooLargeError(`Request body exceeds ${MAX_JSON_BODY_BYTES} bytes`);
      const contentType = event.headers?.['content-type'];
      if (!isJsonMediaType(contentType))
        throw new UnsupportedMediaTypeError(
          contentType
            ? 'The request body must be sent as application/json (or a +json type)'
            : 'The request body has no Content-Type: send it as application/json',
        );
      await parseJson.before?.(request as never);
    })
    .handler(async (event) => {
      const requestId = event.requestContext.requestId;
      // Every line logged for this request carries the API request id (the one clients see in x-request-id).
      logger.appendKeys({ requestId });
      try {
        const deps = getDeps();
        const principal = principals.get(event) ?? null;
        if (principal) logger.appendKeys({ firmId: principal.firmId });
        const request: HandlerRequest<P, Q, B, A> = {
          params: parsePart(route.request.params, event.pathParameters ?? {}, 'params') as Out<P>,
          query: parsePart(route.request.query, event.queryStringParameters ?? {}, 'query') as Out<Q>,
          body: parsePart(route.request.body, event.body ?? {}, 'body') as Out<B>,
          principal: principal as HandlerRequest<P, Q, B, A>['principal'],
          deps,
          requestId,
          event,
        };
        // A POST or PATCH with an Idempotency-Key runs at most once per key (./idempotency.ts).
        const response = await runIdempotently(
          deps,
          { route: route as RouteDef, event, principal, body: event.body },
          async () => {
            // Under a concurrency cap, the request's first ledger append gives its slot back (rate-limit.ts).
            const result = await runWithWriteSlot(deps, event, () => fn(request));
            const answer = toApiResponse(result, requestId);
            if (answer.body !== undefined && Buffer.byteLength(answer.body) > MAX_RESPONSE_BODY_BYTES)
              throw new UnprocessableError(
                `The response would exceed ${MAX_RESPONSE_BODY_BYTES} bytes (the platform's limit): narrow the request`,
              );
            return { response: answer, replayable: result.replayable !== false };
          },
        );
        return withRateLimitHeaders(event, isHead(event) ? withoutBody(response) : response);
      } finally {
        await releaseWriteSlot(getDeps(), event);
        logger.removeKeys(['firmId', 'requestId']);
      }
    })
    .onError(async (request) => {
      // A request refused before its handler ran (its body, its media type) gives its slot back here.
      await releaseWriteSlot(getDeps(), request.event);
      const response = toErrorResponse(request.error, request.event.requestContext?.requestId ?? 'unknown');
      request.response = withRateLimitHeaders(
        request.event,
        isHead(request.event) ? withoutBody(response) : response,
      );
    });
}

const isHead = (event: APIGatewayProxyEventV2) => event.requestContext?.http?.method === 'HEAD';

async function authorise(
  deps: Deps,
  event: APIGatewayProxyEventV2,
  auth: Extract<AuthMode, { kind: 'authenticated' }>,
  firstSignIn: FirstSignIn,
): Promise<Principal> {
  const principal = await authenticate(deps, credentialHeaders(event.headers), firstSignIn);
  if (principal.kind === 'apiKey' && principal.scope === 'auditor' && !auth.auditors) {
    throw new ForbiddenError(
      'An auditor API key is read-only: it may only read the ledger records and the verifiable log',
    );
  }
  if (auth.credentials === 'user' && principal.kind !== 'user') {
    throw new ForbiddenError('This operation requires a signed-in user, not an API key');
  }
  if (auth.roles && principal.kind === 'user' && !auth.roles.includes(principal.role)) {
    throw new ForbiddenError(`This operation requires role ${auth.roles.join(' or ')}`);
  }
  return principal;
}
