import * as z from 'zod';
import { Health, OpenApiDocument, SigningKey, SigningKeyHistory } from '../schemas/common.js';
import { PUBLIC, route } from './route.js';

export const health = route({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  head: true,
  handler: 'functions/platform/health',
  auth: PUBLIC,
  // Each dependency is asked one cheap question (shared/services/health.ts): a main-table read of a key no one
  // writes, the key's public key, the head of an object no one writes. Reads only: a public route writes nothing,
  // so in AWS the queue is watched by its alarm, not asked here (granting a send would be a write).
  permissions: { main: 'read', publicKey: true, immutable: 'read' },
  tag: 'Public',
  summary: 'Service health',
  description:
    'Asks each dependency (database, signer, object store, queue) within a short budget: 200 with status ok, or 503 with status degraded and Retry-After naming which dependency is failing.',
  request: {},
  responses: {
    200: { description: 'The service and its dependencies are up', schema: Health },
    503: { description: 'A dependency is failing (see dependencies)', schema: Health },
  },
});

export const signingKey = route({
  operationId: 'getSigningKey',
  method: 'GET',
  path: '/.well-known/signing-key',
  head: true,
  handler: 'functions/platform/signing-key',
  auth: PUBLIC,
  permissions: { ledger: 'read', publicKey: true },
  tag: 'Public',
  summary: 'The public key that verifies ledger signatures',
  description:
    'The key whose window holds the current instant. Records signed before a rotation verify with an earlier key: /.well-known/signing-keys lists them all.',
  request: {},
  responses: { 200: { description: 'base64 DER SubjectPublicKeyInfo and algorithm', schema: SigningKey } },
});

export const signingKeys = route({
  operationId: 'getSigningKeys',
  method: 'GET',
  path: '/.well-known/signing-keys',
  head: true,
  handler: 'functions/platform/signing-keys',
  auth: PUBLIC,
  permissions: { ledger: 'read', publicKey: true },
  tag: 'Public',
  summary: 'Every ledger signing key with its validity window (the key history)',
  description:
    "A record is valid only if its publicKey is listed here, its timestamp lies in the key's window [validFrom, validUntil) and is before the key's revokedFrom. Each key after the first is endorsed by the previous one (docs/ledger-format.md).",
  request: {},
  responses: {
    200: { description: 'The current version of the signing-key history', schema: SigningKeyHistory },
  },
});

export const openapi = route({
  operationId: 'getOpenApi',
  method: 'GET',
  path: '/openapi.json',
  head: true,
  handler: 'functions/platform/openapi',
  auth: PUBLIC,
  permissions: {},
  tag: 'Public',
  summary: 'This OpenAPI 3.1 description',
  request: {},
  responses: { 200: { description: 'OpenAPI 3.1 document', schema: OpenApiDocument } },
});

export const offlineEvidenceVerifier = route({
  operationId: 'getOfflineEvidenceVerifier',
  method: 'GET',
  path: '/verify/offline',
  head: true,
  handler: 'functions/platform/offline-evidence-verifier',
  auth: PUBLIC,
  permissions: {},
  tag: 'Public',
  summary: 'The offline evidence verifier (HTML page)',
  description:
    'A self-contained page that verifies an evidence bundle (GET /v1/ledger/export) in the browser with WebCrypto, dropped onto it or chosen with its file input. It makes no request; save it to verify without any network (also docs/evidence-verifier.html in the repository).',
  request: {},
  responses: { 200: { description: 'The page', schema: z.string(), contentType: 'text/html' } },
});
