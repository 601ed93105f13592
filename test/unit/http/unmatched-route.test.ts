import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { handler } from '../../../functions/platform/unmatched-route.js';

/** The event API Gateway sends its `$default` route (payload 2.0), reduced to what the function reads. */
const event = (method: string, rawPath: string) =>
  ({
    rawPath,
    requestContext: { requestId: 'req-1', http: { method, path: rawPath } },
  }) as APIGatewayProxyEventV2;

describe('the $default function (AWS)', () => {
  it('answers a known path with another method 405 with Allow, in the envelope, never stored', async () => {
    const response = await handler(event('DELETE', '/v1/incidents'));
    expect(response.statusCode).toBe(405);
    expect(response.headers).toMatchObject({
      allow: 'GET, POST',
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': 'req-1',
    });
    expect(JSON.parse(response.body!)).toEqual({
      error: { code: 'METHOD_NOT_ALLOWED', message: expect.any(String), requestId: 'req-1' },
    });
  });

  it('answers an unknown path 404 without Allow', async () => {
    const response = await handler(event('GET', '/v1/nothing'));
    expect(response.statusCode).toBe(404);
    expect(response.headers).not.toHaveProperty('allow');
    expect(JSON.parse(response.body!).error.code).toBe('NOT_FOUND');
  });

  it('answers HEAD without a body', async () => {
    const response = await handler(event('HEAD', '/v1/ledger/records'));
    expect([response.statusCode, response.headers?.allow, response.body]).toEqual([405, 'GET', undefined]);
  });

  it('answers 404, not 405, should API Gateway send it a (method, path) the table serves', async () => {
    const response = await handler(event('GET', '/health'));
    expect(response.statusCode).toBe(404);
  });
});
