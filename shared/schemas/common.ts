import * as z from 'zod';
import { WellFormedString } from './storable-json.js';

/** Shapes shared by every area: errors, pagination, timestamps. Registered ids become OpenAPI components. */
export const Timestamp = z.iso
  .datetime({ offset: true })
  .meta({ description: 'ISO 8601 date-time (UTC, milliseconds)' });

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.enum([
        'VALIDATION_ERROR',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'SUBMITTER_CANNOT_REVIEW',
        'NOT_FOUND',
        'DOCUMENT_NOT_FOUND',
        'CONFLICT',
        'IMPACT_ASSESSMENT_REQUIRED',
        'UNPROCESSABLE',
        'PAYLOAD_TOO_LARGE',
        'METHOD_NOT_ALLOWED',
        'UNSUPPORTED_MEDIA_TYPE',
        'URI_TOO_LONG',
        'HEADERS_TOO_LARGE',
        'RATE_LIMITED',
        'IDEMPOTENCY_KEY_REUSED',
        'IDEMPOTENCY_KEY_IN_USE',
        'SERVICE_UNAVAILABLE',
        'INTERNAL',
      ]),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      requestId: z.string(),
    }),
  })
  .meta({ id: 'Error', description: 'Body of every non-2xx response' });

export const Pagination = z
  .object({
    page: z.number().int().min(1),
    pageSize: z.number().int().min(1).max(100),
    total: z.number().int().min(0).nullable().meta({
      description:
        'Items in the whole list. null where it is not known cheaply: a filtered list (records by filter, jobs by status, deliveries) before its last page; known for the unfiltered records list and on the page that ends a list',
    }),
    totalPages: z.number().int().min(0).nullable().meta({ description: 'null exactly when total is null' }),
    nextCursor: z.string().nullable().meta({
      description:
        'Opaque cursor of the next page (pass it as query parameter cursor, with the same filters, order and pageSize); null on the last page. A filtered page may hold fewer than pageSize items (even none) and still have a nextCursor: each request reads a bounded number of items',
    }),
  })
  .meta({ id: 'Pagination' });

export const MAX_PAGE_SIZE = 100;

/** The opaque position of a next page (issue 14): bound to the firm and the query; tampered or foreign: 400. */
export const Cursor = z.string().min(1).max(2048).optional().meta({
  description:
    'pagination.nextCursor (or the Link rel="next" cursor) of the previous page, as returned; when given, page is ignored. Page numbers skip at most 1,000 items: use the cursor for deeper pages',
});
export const DEFAULT_PAGE_SIZE = 25;

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1' }),
  pageSize: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .meta({ description: `Items per page, 1 to ${MAX_PAGE_SIZE}` }),
  cursor: Cursor,
});

/** Default and largest size of a plain-array list (certificates, impact assessments, report log). */
export const DEFAULT_LIST_LIMIT = 100;

/**
 * The query of a list the spec defines as a plain array: a bounded size and the cursor of the `Link: <…>;
 * rel="next"` header of the previous answer.
 */
export const ArrayListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(DEFAULT_LIST_LIMIT)
    .default(DEFAULT_LIST_LIMIT)
    .meta({ description: `Most items returned, 1 to ${DEFAULT_LIST_LIMIT} (default ${DEFAULT_LIST_LIMIT})` }),
  cursor: Cursor,
});

/** The OpenAPI note of every plain-array list: how to get the rest. */
export const ARRAY_LIST_NOTE =
  'At most limit items (default 100). When more follow, the answer has a header `Link: <same path and query with cursor=...>; rel="next"` (RFC 8288); request that URL for the next items. A cursor is bound to the firm and the query (400 otherwise).';

export function paged<T extends z.ZodType>(item: T, id: string) {
  return z.object({ data: z.array(item), pagination: Pagination }).meta({ id });
}

export const IdParam = z.object({ id: WellFormedString.min(1).max(200) });

const DependencyHealth = z.enum(['ok', 'failing']);
export const Health = z
  .object({
    status: z.enum(['ok', 'degraded']),
    dependencies: z
      .object({
        database: DependencyHealth,
        signer: DependencyHealth,
        objects: DependencyHealth,
        queue: DependencyHealth,
      })
      .meta({ description: 'Each dependency: ok, or failing (timed out or failed within its check budget)' }),
    timestamp: Timestamp,
  })
  .meta({ id: 'Health' });

export const SigningKey = z
  .object({
    publicKey: z.string().meta({ description: 'base64 DER SubjectPublicKeyInfo' }),
    algorithm: z.string().meta({ description: 'ECDSA_SHA_256 (key spec ECC_NIST_P256)' }),
    keySpec: z.string(),
    fingerprint: z.string().meta({ description: 'hex SHA-256 of the DER SubjectPublicKeyInfo' }),
  })
  .meta({ id: 'SigningKey' });

const Instant = z.iso.datetime({ offset: true });

/** One key of the signing-key history (shared/ledger/key-history.ts SigningKeyEntry). */
export const SigningKeyEntry = z
  .object({
    fingerprint: z.string().meta({ description: 'hex SHA-256 of the DER SubjectPublicKeyInfo' }),
    publicKey: z.string().meta({ description: 'base64 DER SubjectPublicKeyInfo' }),
    algorithm: z.literal('ECDSA_SHA_256'),
    keySpec: z.literal('ECC_NIST_P256'),
    validFrom: Instant.meta({
      description: 'The key signs records whose timestamp is at or after this instant',
    }),
    validUntil: Instant.nullable().meta({
      description: 'The key signs records whose timestamp is before this instant; null for the current key',
    }),
    revokedFrom: Instant.nullable().meta({
      description: 'Records signed by this key with a timestamp at or after this instant are KEY_REVOKED',
    }),
    endorsement: z
      .object({
        signedBy: z.string().meta({ description: 'Fingerprint of the previous key' }),
        signature: z.string().meta({
          description:
            'base64 DER ECDSA P-256 (SHA-256) signature by the previous key over the RFC 8785 JSON of {algorithm, fingerprint, keySpec, publicKey, validFrom}',
        }),
      })
      .nullable()
      .meta({ description: 'null for the first key only' }),
  })
  .meta({ id: 'SigningKeyEntry' });

/** Every key that ever signed ledger records, oldest first (issue 15; docs/ledger-format.md). */
export const SigningKeyHistory = z
  .object({
    version: z.number().int().min(1).meta({ description: 'Increases with every rotation or revocation' }),
    keys: z.array(SigningKeyEntry),
  })
  .meta({ id: 'SigningKeyHistory' });

/**
 * GET /openapi.json: the OpenAPI 3.1 document's outline (the OpenAPI 3.1 schema itself governs the rest; Redocly
 * lints ours in the tests).
 */
export const OpenApiDocument = z
  .looseObject({
    openapi: z.string().regex(/^3\.1\.\d+$/),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string().regex(/^\//), z.looseObject({})),
    components: z.looseObject({}),
  })
  .meta({
    id: 'OpenApiDocument',
    description: 'An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1.0)',
  });
