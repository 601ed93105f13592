import { ServiceUnavailableError, ConflictError } from '../../../shared/errors.js';
import { errorResponse, toErrorResponse } from '../../../shared/http/errors.js';
import {
  created,
  noContent,
  octets,
  plainText,
  toApiResponse,
  withoutBody,
} from '../../../shared/http/response.js';

const DEFAULTS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

describe('toApiResponse', () => {
  it('sends an object as JSON, with the request id', () => {
    expect(toApiResponse(created({ id: 'x' }), 'req-1')).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'application/json', ...DEFAULTS, 'x-request-id': 'req-1' },
      body: '{"id":"x"}',
    });
  });

  it('sends a string as it is, with the route’s own headers, and no body as none', () => {
    expect(
      toApiResponse({ statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' }, 'r'),
    ).toEqual({
      statusCode: 200,
      headers: { ...DEFAULTS, 'x-request-id': 'r', 'content-type': 'text/html' },
      body: '<p>hi</p>',
    });
    expect(toApiResponse(noContent(), 'r')).toEqual({
      statusCode: 204,
      headers: { ...DEFAULTS, 'x-request-id': 'r' },
    });
  });

  it('keeps a route’s own cache-control (whatever its case) over the no-store default', () => {
    const response = toApiResponse(
      { statusCode: 200, headers: { 'Cache-Control': 'public, max-age=300' }, body: { a: 1 } },
      'r',
    );
    expect(response.headers).toEqual({
      'content-type': 'application/json',
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      'x-request-id': 'r',
    });
  });

  it('sends bytes base64-encoded for API Gateway, as octets unless the route names a type', () => {
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    expect(toApiResponse(octets(bytes, { 'cache-control': 'public' }), 'r')).toEqual({
      statusCode: 200,
      headers: {
        'content-type': 'application/octet-stream',
        ...DEFAULTS,
        'cache-control': 'public',
        'x-request-id': 'r',
      },
      body: 'AAEC/f7/',
      isBase64Encoded: true,
    });
    // A view into a larger buffer sends only its own bytes.
    const view = new Uint8Array(new Uint8Array([9, 9, 1, 2, 9]).buffer, 2, 2);
    expect(toApiResponse({ statusCode: 200, body: view }, 'r').body).toBe('AQI=');
    expect(withoutBody(toApiResponse(octets(bytes), 'r'))).not.toHaveProperty('isBase64Encoded');
  });

  it('sends plain text as UTF-8 text', () => {
    expect(toApiResponse(plainText('a\nb\n'), 'r')).toEqual({
      statusCode: 200,
      headers: { ...DEFAULTS, 'x-request-id': 'r', 'content-type': 'text/plain; charset=utf-8' },
      body: 'a\nb\n',
    });
  });

  it('answers HEAD with the headers of GET and no body', () => {
    const get = toApiResponse({ statusCode: 200, body: { a: 1 } }, 'r');
    expect(withoutBody(get)).toEqual({ statusCode: 200, headers: get.headers });
  });
});

describe('the error envelope', () => {
  it('takes the same final shape as a success', () => {
    const response = toErrorResponse(new ConflictError('taken'), 'req-2');
    expect(response).toEqual(
      toApiResponse(
        { statusCode: 409, body: { error: { code: 'CONFLICT', message: 'taken', requestId: 'req-2' } } },
        'req-2',
      ),
    );
    expect(errorResponse('NOT_FOUND', 'No route', 'req-3').headers).toEqual({
      'content-type': 'application/json',
      ...DEFAULTS,
      'x-request-id': 'req-3',
    });
  });

  it('adds Retry-After to a 503', () => {
    const response = toErrorResponse(new ServiceUnavailableError('busy', 7), 'req-4');
    expect(response.statusCode).toBe(503);
    expect(response.headers).toEqual({
      'content-type': 'application/json',
      ...DEFAULTS,
      'x-request-id': 'req-4',
      'retry-after': '7',
    });
  });
});
