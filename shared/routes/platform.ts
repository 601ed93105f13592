import * as z from 'zod';
import { Health, OpenApiDocument, SigningKey } from '../schemas/common.js';
import { PUBLIC, route } from './route.js';

export const health = route({
  operationId: 'getHealth',
  method: 'GET',
  path: '/health',
  head: true,
  handler: 'functions/platform/health',
  auth: PUBLIC,
  permissions: {},
  tag: 'Public',
  summary: 'Service health',
  request: {},
  responses: { 200: { description: 'The service is up', schema: Health } },
});

export const signingKey = route({
  operationId: 'getSigningKey',
  method: 'GET',
  path: '/.well-known/signing-key',
  head: true,
  handler: 'functions/platform/signing-key',
  auth: PUBLIC,
  permissions: { publicKey: true },
  tag: 'Public',
  summary: 'The public key that verifies ledger signatures',
  request: {},
  responses: { 200: { description: 'base64 DER SubjectPublicKeyInfo and algorithm', schema: SigningKey } },
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
