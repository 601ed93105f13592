import type * as z from 'zod';
import { documentIdempotencyKey, idempotencyErrorStatuses } from './openapi-idempotency.js';
import { documentWriteLimit, WRITE_LIMITS_SEMANTICS } from './openapi-write-limits.js';
import { httpRoutes, ROUTES } from './routes.js';
import type { RouteDef } from './routes/route.js';
import { COMPONENT, SchemaForms, type JsonSchema } from './openapi-schemas.js';
import { ErrorBody } from './schemas/common.js';

/**
 * Generates the OpenAPI 3.1 description from the route table and the same zod schemas that validate
 * requests (zod's own JSON Schema 2020-12 output, which OpenAPI 3.1 uses as its schema dialect).
 */
export function buildOpenApi(routes: readonly RouteDef[] = ROUTES): Record<string, unknown> {
  const forms = new SchemaForms();
  const convert = (schema: z.ZodType, io: 'input' | 'output') => forms.convert(schema, io);

  const errorRef = { $ref: `${COMPONENT}Error` };
  convert(ErrorBody, 'output');

  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path: routePath, route, alias } of httpRoutes(routes)) {
    const path = openApiPath(routePath);
    const greedy = greedyParameter(routePath);
    const parameters: unknown[] = [];
    for (const [location, schema] of [
      ['path', route.request.params],
      ['query', route.request.query],
    ] as const) {
      if (!schema) continue;
      const json = convert(schema, 'input') as {
        properties?: Record<string, JsonSchema>;
        required?: string[];
      };
      for (const [name, property] of Object.entries(json.properties ?? {})) {
        const { description, ...propertySchema } = property;
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (json.required ?? []).includes(name),
          ...(description ? { description } : {}),
          // The rest of the path, slashes included (API Gateway's `{name+}`); OpenAPI templates have no such
          // parameter, so the extension says it (test/support/contract.ts matches paths by it).
          ...(location === 'path' && name === greedy ? { [GREEDY_EXTENSION]: true } : {}),
          schema: propertySchema,
        });
      }
    }

    const responses: Record<string, Record<string, unknown>> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      // A route's own error status without a schema of its own answers the error envelope.
      const schema = response.schema
        ? convert(response.schema, 'output')
        : Number(status) >= 400
          ? errorRef
          : undefined;
      responses[status] = {
        description: response.description,
        ...(schema ? { content: { [response.contentType ?? 'application/json']: { schema } } } : {}),
        ...(response.headers ? { headers: response.headers } : {}),
      };
    }
    const errorStatuses = [
      ...(route.request.params || route.request.query || route.request.body ? ['400'] : []),
      ...(route.auth.kind === 'public' ? [] : ['401', '403']),
      ...(route.request.params ? ['404'] : []),
      ...(route.method === 'GET' ? [] : ['409']),
      ...(route.request.body ? ['413', '415'] : []),
      // An answer over the platform's response limit is refused rather than cut (defineHandler).
      ...(Object.values(route.responses).some((r) => r.schema) ? ['422'] : []),
      ...idempotencyErrorStatuses(route),
      // Stage throttling answers 429 on every route.
      '429',
      '500',
      // Every route may find a dependency stalled or failing (issue 32): 503 with Retry-After, never a hang.
      '503',
    ];
    for (const status of errorStatuses) {
      responses[status] ??= {
        description: ERROR_DESCRIPTIONS[status],
        content: { 'application/json': { schema: errorRef } },
      };
    }

    const description = documentWriteLimit(route, responses, errorRef);
    documentIdempotencyKey(route, parameters, responses);

    if (method === 'HEAD') {
      (paths[path] ??= {}).head = headOperation(route, alias, parameters, responses);
      continue;
    }
    const operation: Record<string, unknown> = {
      operationId: alias ? `${route.operationId}Principal` : route.operationId,
      tags: [alias ? 'Principal' : route.tag],
      summary: route.summary,
      ...(description ? { description } : {}),
      ...(parameters.length ? { parameters } : {}),
      ...(route.request.body
        ? {
            requestBody: {
              required: route.bodyOptional !== true,
              content: { 'application/json': { schema: convert(route.request.body, 'input') } },
            },
          }
        : {}),
      responses,
      security: route.auth.kind === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
    };
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  }

  const tags = [
    ...new Set(
      Object.values(paths).flatMap((ops) =>
        Object.values(ops).flatMap((op) => (op as { tags: string[] }).tags),
      ),
    ),
  ]
    .sort()
    .map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `${name} operations` }));

  const { part: described, components } = forms.finish(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Governance Ledger Service',
      version: '1.0.0',
      description:
        'Append-only, hash-chained, ECDSA-signed compliance ledger for regulated financial-advice firms. Record format: docs/ledger-format.md.\n\n' +
        HTTP_SEMANTICS,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This deployment' }],
    tags,
    paths: described,
    components: {
      schemas: components,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Key',
          description:
            'Firm API key (gls_…). A key of scope auditor is read-only: it may call only the ledger record reads and the verifiable log (GET /v1/ledger/records, /v1/ledger/records/{id}, /v1/ledger/records/{id}/proof, /v1/ledger/log/…); any other operation answers it 403 FORBIDDEN.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "A firm user's OIDC token",
        },
      },
    },
  };
}

/** Marks a path parameter that takes the rest of the path, slashes included (API Gateway's `{name+}`). */
export const GREEDY_EXTENSION = 'x-greedy';

/**
 * A route's path as an OpenAPI path template: API Gateway's greedy `{name+}` becomes `{name}` (OpenAPI has no
 * greedy syntax; the parameter carries GREEDY_EXTENSION instead).
 */
export const openApiPath = (path: string): string => path.replace(/\{(\w+)\+\}/g, '{$1}');

/** The name of the route's greedy path parameter, if it has one. */
const greedyParameter = (path: string): string | undefined => /\{(\w+)\+\}/.exec(path)?.[1];

/** What holds for every operation, which the operations themselves cannot say. */
const HTTP_SEMANTICS = [
  'Every answer carries `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`, except answers that may be cached, which say so (`/.well-known/signing-key` and `/openapi.json`: `public, max-age=300`; the log tiles under `/v1/ledger/log/tile/`, which never change: `public, max-age=31536000, immutable` with `Vary: Authorization, X-Service-Key`).',
  'A method a path does not have is answered 405 `METHOD_NOT_ALLOWED` in the error envelope, with an `Allow` header listing the methods it has; an unknown path is 404 `NOT_FOUND`.',
  'A request body is JSON: an operation that takes one answers 415 `UNSUPPORTED_MEDIA_TYPE` to a body sent with another `Content-Type` (`application/json` and `+json` types, with parameters such as `charset`, are accepted); an operation without a request body ignores any body.',
  '`HEAD` is answered on `/health` and the public GETs (the GET headers, no body).',
  'Before any operation, the gateway refuses a request line over 10,240 bytes with 414 `URI_TOO_LONG` and header values over 10,240 bytes with 431 `HEADERS_TOO_LARGE`.',
  WRITE_LIMITS_SEMANTICS,
].join(' ');

/** The HEAD twin of a GET: the same parameters and statuses, without bodies. */
function headOperation(
  route: RouteDef,
  alias: boolean,
  parameters: unknown[],
  responses: Record<string, unknown>,
): Record<string, unknown> {
  return {
    operationId: `${route.operationId}${alias ? 'Principal' : ''}Head`,
    tags: [alias ? 'Principal' : route.tag],
    summary: `${route.summary} (headers only)`,
    description: `The headers of GET ${route.path}, without a body.`,
    ...(parameters.length ? { parameters } : {}),
    responses: Object.fromEntries(
      Object.entries(responses).map(([status, response]) => [
        status,
        { description: (response as { description: string }).description },
      ]),
    ),
    security: route.auth.kind === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
  };
}

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'Invalid request (details lists the offending fields)',
  '401': 'Missing or invalid credential',
  '403': 'Credential lacks the role or credential type required',
  '404': 'Not found (also for resources of another firm)',
  '409': 'Conflict with the current state',
  '413': 'The request body is too large (a JSON body: over 256 KiB)',
  '415': 'The body was not sent as application/json (or a +json type)',
  '422':
    "UNPROCESSABLE: the answer would exceed 5 MiB, the platform's limit (narrow the request); or IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request",
  '429': 'Too many requests (stage throttling); retry with backoff',
  '500': 'Internal error',
  '503':
    'SERVICE_UNAVAILABLE: a dependency stalled or failed (or, for a ledger write, the ledger or the signing quota is busy); a write that answers 503 was not committed; retry after Retry-After seconds',
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Public: 'Unauthenticated endpoints',
  Ledger: 'The hash-chained, signed record chain',
  Firm: 'Firm administration',
  Users: "Firm administration: the firm's users, their roles and FG21/1 specialist flags",
  DocumentTypes:
    'Firm administration: document types and their review checklists (platform defaults and custom)',
  Review: 'Document review: uploads, job submission and tracking',
  Principal: 'Review operations under the /v1/principal prefix',
  Integrity: 'Chain verification, comparison with the immutable copy, and repair',
};
