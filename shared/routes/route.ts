import type { z } from 'zod';
import type { Role } from '../domain/auth/principal.js';
import type { QueueName } from '../ports/queue.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route. `public`: anyone. Otherwise a credential is required: `any` accepts a firm API key
 * or a signed-in user, `user` only a signed-in user; `roles`, when given, restricts users to those roles
 * (API keys act for the firm and pass a role check unless credentials is `user`).
 */
export type AuthMode =
  | { kind: 'public' }
  | {
      kind: 'authenticated';
      credentials: 'any' | 'user';
      roles?: readonly Role[];
      /** An `auditor` API key (read-only) may call it too; any other route answers such a key 403. */
      auditors?: true;
    };

/** What a route's function may touch: the CDK stack turns this into its IAM grants and environment. */
export interface Permissions {
  main?: 'read' | 'write';
  /**
   * read: query records; archive: also clear outbox entries; append: also commit records (implies archive);
   * restore: also put a record row back from its immutable copy (implies append).
   */
  ledger?: 'read' | 'archive' | 'append' | 'restore';
  immutable?: 'read' | 'write';
  /**
   * The uploads (staging) bucket. presign: PutObject, which a presigned PUT URL carries (it acts with its
   * signer's permissions); read: GetObject and ListBucket; write: also PutObject and DeleteObject (consume).
   */
  uploads?: 'presign' | 'read' | 'write';
  /**
   * The certificates bucket (PDFs under `certificates/`). read: GetObject, which a presigned GET URL carries;
   * write: also PutObject (the certificate worker).
   */
  certificates?: 'read' | 'write';
  /**
   * Links a user's first sign-in (activatedAt, subject, subject index): the attribute-restricted writes of
   * activateUser and the token verifier's settings. Only the user-activation worker holds it (issue 12, part 8).
   */
  activateUsers?: boolean;
  /** KMS Sign with the ledger key (every ledger append). */
  sign?: boolean;
  /** KMS Sign with the Ed25519 checkpoint key (issue 31): the log-checkpoint worker alone. */
  signCheckpoints?: boolean;
  /** KMS GetPublicKey only (publishing the key). */
  publicKey?: boolean;
  queues?: readonly QueueName[];
}

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  /**
   * Media type of the body; default application/json (the HTML verification page is text/html, the log's
   * checkpoints and proofs text/plain, its tiles application/octet-stream).
   */
  contentType?: string;
  /** Headers of this answer worth documenting (OpenAPI header objects: Cache-Control, Retry-After). */
  headers?: Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;
}

export interface RouteDef<
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  A extends AuthMode = AuthMode,
> {
  operationId: string;
  method: HttpMethod;
  /**
   * API Gateway path syntax: `/v1/ledger/records/{id}`; a last segment `{name+}` is greedy (the rest of the
   * path, slashes included, as `name`).
   */
  path: string;
  /**
   * A GET that also answers HEAD (the same function and headers, no body): the public GETs a client or monitor
   * may probe. A route key of its own in API Gateway, an operation of its own in the OpenAPI description.
   */
  head?: boolean;
  /** Handler module, relative to the repository root, without extension; it exports `handler`. */
  handler: string;
  auth: A;
  permissions: Permissions;
  tag: string;
  summary: string;
  description?: string;
  request: { params?: P; query?: Q; body?: B };
  /** The body may be left out (it is then read as `{}`, so every field takes its default). */
  bodyOptional?: boolean;
  responses: Record<number, ResponseDef>;
  /** Needs the public base URL of the API (PUBLIC_BASE_URL), e.g. for the log's checkpoint origin. */
  needsPublicBaseUrl?: boolean;
}

/** Declares a route, keeping its schemas' types for the handler. */
export function route<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  A extends AuthMode = AuthMode,
>(def: RouteDef<P, Q, B, A>): RouteDef<P, Q, B, A> {
  return def;
}

/**
 * What a route's function is granted and bundled with: its declared Permissions plus what authenticating a
 * caller takes. Credential lookup reads the main table (API key hash, user by e-mail or subject); a user's
 * first sign-in is linked by a route that writes the main table anyway, and only queued for the
 * user-activation worker by any other route, which therefore holds no write on user items (issue 12, part 8).
 */
export function routeFunctionPermissions(route: RouteDef): Permissions {
  if (route.auth.kind === 'public') return route.permissions;
  const { main, queues = [] } = route.permissions;
  return {
    ...route.permissions,
    main: main ?? 'read',
    ...(main === 'write' ? {} : { queues: [...new Set([...queues, 'user-activation' as const])] }),
  };
}

export const PUBLIC = { kind: 'public' } as const;
export const ANY_CREDENTIAL = { kind: 'authenticated', credentials: 'any' } as const;
/**
 * Any of the firm's credentials, and also its read-only `auditor` API keys: the ledger record reads and the
 * verifiable log, the only routes such a key may call (shared/domain/auth/principal.ts).
 */
export const ANY_CREDENTIAL_OR_AUDITOR = {
  kind: 'authenticated',
  credentials: 'any',
  auditors: true,
} as const;

/**
 * Does the route take `Idempotency-Key`? Every authenticated POST and PATCH (the CDK stack grants each the
 * writes of its key items: lib/permissions.ts).
 */
export const takesIdempotencyKey = (route: Pick<RouteDef, 'method' | 'auth'>): boolean =>
  (route.method === 'POST' || route.method === 'PATCH') && route.auth.kind !== 'public';
