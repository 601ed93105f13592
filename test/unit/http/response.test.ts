import { ServiceUnavailableError, ConflictError } from '../../../shared/errors.js';
import { errorResponse, toErrorResponse } from '../../../shared/http/errors.js';
import { created, noContent, toApiResponse } from '../../../shared/http/response.js';

describe('toApiResponse', () => {
  it('sends an object as JSON, with the request id', () => {
    expect(toApiResponse(created({ id: 'x' }), 'req-1')).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'application/json', 'x-request-id': 'req-1' },
      body: '{"id":"x"}',
    });
  });

  it('sends a string as it is, with the route’s own headers, and no body as none', () => {
    expect(
      toApiResponse({ statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>hi</p>' }, 'r'),
    ).toEqual({
      statusCode: 200,
      headers: { 'x-request-id': 'r', 'content-type': 'text/html' },
      body: '<p>hi</p>',
    });
    expect(toApiResponse(noContent(), 'r')).toEqual({ statusCode: 204, headers: { 'x-request-id': 'r' } });
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
      'x-request-id': 'req-3',
    });
  });

  it('adds Retry-After to a 503', () => {
    const response = toErrorResponse(new ServiceUnavailableError('busy', 7), 'req-4');
    expect(response.statusCode).toBe(503);
    expect(response.headers).toEqual({
      'content-type': 'application/json',
      'x-request-id': 'req-4',
      'retry-after': '7',
    });
  });
});
