import { createPublicKey } from 'node:crypto';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { openApiPath } from '../../shared/openapi.js';
import { httpRoutes } from '../../shared/routes.js';
import { api, stack } from './helpers.js';

describe('public endpoints', () => {
  it('GET /health answers ok with a timestamp', async () => {
    const { status, body } = await api('GET', '/health');
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(Math.abs(Date.parse(body.timestamp) - Date.now())).toBeLessThan(60_000);
  });

  it('GET /.well-known/signing-key publishes a P-256 SPKI key with its algorithm', async () => {
    const { status, body } = await api('GET', '/.well-known/signing-key');
    expect(status).toBe(200);
    expect(body.algorithm).toBe('ECDSA_SHA_256');
    expect(body.keySpec).toBe('ECC_NIST_P256');
    const key = createPublicKey({ key: Buffer.from(body.publicKey, 'base64'), format: 'der', type: 'spki' });
    expect(key.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(body.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('GET /.well-known/signing-keys publishes the key history, the current key included, answered for HEAD too', async () => {
    const { status, body, headers } = await api('GET', '/.well-known/signing-keys');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=300');
    const { body: current } = await api('GET', '/.well-known/signing-key');
    // Before any rotation: the genesis version, the stack's key valid from the epoch.
    expect(body).toEqual({
      version: 1,
      keys: [
        {
          fingerprint: current.fingerprint,
          publicKey: current.publicKey,
          algorithm: 'ECDSA_SHA_256',
          keySpec: 'ECC_NIST_P256',
          validFrom: '1970-01-01T00:00:00.000Z',
          validUntil: null,
          revokedFrom: null,
          endorsement: null,
        },
      ],
    });
    const head = await fetch(`${stack.baseUrl}/.well-known/signing-keys`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it('answers an unknown path with the error envelope', async () => {
    const { status, body } = await api('GET', '/v1/nothing-here');
    expect(status).toBe(404);
    expect(body.error).toEqual({
      code: 'NOT_FOUND',
      message: expect.any(String),
      requestId: expect.any(String),
    });
  });
});

describe('GET /openapi.json', () => {
  let document: any;
  beforeAll(async () => {
    const { status, body } = await api('GET', '/openapi.json');
    expect(status).toBe(200);
    document = body;
  });

  it('is OpenAPI 3.1 at version 1.0.0', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
  });

  it('describes every route of the route table, with its security', () => {
    for (const { method, path, route } of httpRoutes()) {
      const operation = document.paths[openApiPath(path)]?.[method.toLowerCase()];
      expect(operation).toBeDefined();
      expect(operation.security).toEqual(
        route.auth.kind === 'public' ? [] : [{ apiKey: [] }, { bearer: [] }],
      );
    }
  });

  it('carries the request schemas that validate requests', () => {
    const patch = document.paths['/v1/firm/me/settings'].patch;
    const schema = patch.requestBody.content['application/json'].schema;
    const resolved = schema.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema;
    expect(resolved.properties.biasWarningThreshold).toMatchObject({
      type: 'number',
      minimum: 0,
      maximum: 1,
    });
    expect(resolved.additionalProperties).toBe(false);
    const list = document.paths['/v1/ledger/records'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(
      expect.arrayContaining([
        'page',
        'pageSize',
        'eventType',
        'startDate',
        'endDate',
        'actorId',
        'documentHash',
        'documentReference',
      ]),
    );
  });

  it('lints clean with Redocly (recommended rules)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });
});
