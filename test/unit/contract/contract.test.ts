import * as z from 'zod';
import { buildOpenApi } from '../../../shared/openapi.js';
import { ANY_CREDENTIAL, route } from '../../../shared/routes/route.js';
import { Description, NOT_THE_API } from '../../support/contract.js';

/*
 * Issue 19, part 1: the harness's check of an answer against the description (test/support/contract.ts), here on
 * the description the route table generates, so that each rule is seen to fail.
 */

const description = new Description(buildOpenApi() as ConstructorParameters<typeof Description>[0]);

function answer(
  method: string,
  path: string,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const contentType = typeof body === 'string' ? 'text/plain' : 'application/json';
  return {
    method,
    path,
    status,
    headers: new Headers({ 'content-type': contentType, ...headers }),
    text,
    body,
  };
}

const envelope = (code: string) => ({ error: { code, message: 'm', requestId: 'r' } });
const health = {
  status: 'ok',
  dependencies: { database: 'ok', signer: 'ok', objects: 'ok', queue: 'ok' },
  timestamp: '2026-11-26T13:00:00.000Z',
};

describe('the answer check', () => {
  it('passes documented answers: body, error envelope, empty 204, HEAD without body', () => {
    expect(description.check(answer('GET', '/health', 200, health))).toEqual([]);
    expect(description.check(answer('GET', '/v1/incidents/inc_1?x=1', 404, envelope('NOT_FOUND')))).toEqual(
      [],
    );
    expect(description.check(answer('DELETE', '/v1/firm/me/api-keys/key_1', 204))).toEqual([]);
    expect(description.check(answer('HEAD', '/health', 200))).toEqual([]);
  });

  it('fails an undocumented status, naming the operation', () => {
    const problems = description.check(answer('POST', '/v1/review/jobs', 418, envelope('CONFLICT')));
    expect(problems.join('\n')).toContain(
      'submitReviewJob (POST /v1/review/jobs): status 418 is not documented',
    );
  });

  it('fails a body its schema forbids, with the Ajv errors', () => {
    const problems = description.check(answer('GET', '/health', 200, { ...health, submittedBy: 'usr_1' }));
    expect(problems[0]).toContain('getHealth (GET /health) 200 application/json: the body does not match');
    expect(problems.join('\n')).toContain('must NOT have additional properties');
    expect(description.check(answer('GET', '/health', 200, { status: 'ok' })).join()).toContain('timestamp');
  });

  it('fails an undocumented content type and a body where none is documented', () => {
    expect(description.check(answer('GET', '/health', 200, 'ok')).join()).toContain(
      '"text/plain" is not documented',
    );
    expect(description.check(answer('DELETE', '/v1/firm/me/api-keys/key_1', 204, {})).join()).toContain(
      'no body',
    );
    expect(description.check(answer('HEAD', '/health', 200, health)).join()).toContain('no body');
  });

  it('holds answers no operation makes to the stated rules: 404, 405 with Allow, 414 and 431', () => {
    expect(description.check(answer('GET', '/v1/nothing', 404, envelope('NOT_FOUND')))).toEqual([]);
    expect(description.check(answer('GET', '/v1/nothing', 200, health)).join()).toContain('says 404');
    const allow = { allow: 'GET, HEAD' };
    expect(
      description.check(answer('DELETE', '/health', 405, envelope('METHOD_NOT_ALLOWED'), allow)),
    ).toEqual([]);
    expect(
      description
        .check(answer('DELETE', '/health', 405, envelope('METHOD_NOT_ALLOWED'), { allow: 'GET' }))
        .join(),
    ).toContain('Allow is "GET"');
    expect(description.check(answer('DELETE', '/health', 404, envelope('NOT_FOUND'))).join()).toContain(
      'says 405',
    );
    expect(description.check(answer('GET', '/health', 431, envelope('HEADERS_TOO_LARGE')))).toEqual([]);
    expect(description.check(answer('GET', '/x', 414, { message: 'too long' })).join()).toContain('envelope');
  });

  it('leaves out only the local helpers that are not the API', () => {
    expect(NOT_THE_API.map((p) => p.prefix)).toEqual(['/__local/', '/local-objects/', '/dev-issuer/']);
    expect(description.check(answer('GET', '/__local/metrics', 200, { signCalls: 1 }))).toEqual([]);
    expect(description.check(answer('GET', '/v1/__local/metrics', 200, {})).join()).toContain('says 404');
  });
});

describe('greedy path parameters and binary answers', () => {
  const tiles = route({
    operationId: 'getTile',
    method: 'GET',
    path: '/v1/log/tile/{path+}',
    handler: 'functions/x',
    auth: ANY_CREDENTIAL,
    permissions: {},
    tag: 'Ledger',
    summary: 'A tile',
    request: { params: z.object({ path: z.string() }) },
    responses: {
      200: {
        description: 'Bytes',
        contentType: 'application/octet-stream',
        schema: z.string().meta({ contentMediaType: 'application/octet-stream', maxLength: 4 }),
      },
    },
  });
  const greedy = new Description(buildOpenApi([tiles]) as ConstructorParameters<typeof Description>[0]);
  const binary = (path: string, bytes: number[]) => ({
    method: 'GET',
    path,
    status: 200,
    headers: new Headers({ 'content-type': 'application/octet-stream' }),
    text: '',
    body: '',
    bytes: new Uint8Array(bytes),
  });

  it('matches a greedy parameter over one segment or more, and checks the bytes against the schema', () => {
    expect(greedy.check(binary('/v1/log/tile/0/x001/234.p/7', [0, 255, 128]))).toEqual([]);
    expect(greedy.check(binary('/v1/log/tile/entries', [1]))).toEqual([]);
    expect(greedy.check(binary('/v1/log/tile/0/000', [1, 2, 3, 4, 5])).join()).toContain('does not match');
    expect(greedy.check(answer('GET', '/v1/log/tile', 200, health)).join()).toContain('says 404');
  });
});
