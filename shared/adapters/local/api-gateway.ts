import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { HttpRoute } from '../../routes.js';
import { errorResponse, unmatchedResponse } from '../../http/errors.js';
import { withoutBody } from '../../http/response.js';
import { createRouteMatcher } from '../../http/route-matcher.js';
import { lambdaContext } from './local-queue.js';

export type LambdaHttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * Extra non-API paths the local server answers itself (dev issuer JWKS, presigned object URLs). It runs before
 * the body is read, so a handler that answers reads the body itself, with its own size limit (`readBody`
 * answers null past the limit, after draining the rest); one that returns false must not read it.
 */
export type LocalPathHandler = (
  request: IncomingMessage,
  response: ServerResponse,
  readBody: (maxBytes: number) => Promise<Buffer | null>,
) => Promise<boolean>;

/** API Gateway's HTTP API payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * API Gateway's HTTP API limit on the request line and header values together (10,240 bytes, not adjustable).
 * The local server enforces the same, in the error envelope: 414 URI_TOO_LONG when the request line alone is
 * over it, else 431 HEADERS_TOO_LARGE.
 */
export const MAX_REQUEST_LINE_AND_HEADERS_BYTES = 10_240;
/** What Node's parser accepts before our check sees the request (past it, the clientError envelope below). */
const NODE_MAX_HEADER_BYTES = 64 * 1024;

/**
 * The API Gateway stand-in: matches a request against the route table, builds the HTTP API (payload v2)
 * event, invokes the route's Lambda handler module and writes its result back. A request no route matches
 * gets what the `$default` function answers in AWS (functions/platform/unmatched-route.ts): 405 with `Allow`
 * for a known path, else 404, from the same matcher.
 */
export function createApiServer(options: {
  routes: HttpRoute[];
  loadHandler: (module: string) => Promise<LambdaHttpHandler>;
  localPaths?: LocalPathHandler;
}): Server {
  const match = createRouteMatcher(options.routes);
  const server = createServer({ maxHeaderSize: NODE_MAX_HEADER_BYTES }, (request, response) => {
    const requestId = randomUUID();
    handle(request, response, requestId).catch((error: unknown) => {
      console.error('Local API gateway error', error);
      if (!response.headersSent) send(response, errorResponse('INTERNAL', 'Internal error', requestId));
      else response.destroy();
    });
  });
  // A request Node's parser refuses (headers past NODE_MAX_HEADER_BYTES, malformed HTTP) still gets the envelope.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const result = tooLarge
      ? errorResponse('HEADERS_TOO_LARGE', tooLargeMessage('Request line and headers'), randomUUID())
      : errorResponse('VALIDATION_ERROR', 'Malformed HTTP request', randomUUID());
    const body = result.body ?? '';
    const head = [
      `HTTP/1.1 ${result.statusCode} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}`,
      ...Object.entries(result.headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`),
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  // Idle connections stay open longer than any client keeps one for reuse (undici: a few seconds; API Gateway's
  // own idle timeout is minutes), so a client never sends on a socket the stack is closing at that moment.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;

  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string) {
    const oversize = requestLineAndHeadersCheck(request, requestId);
    if (oversize) {
      await readBody(request, 0);
      return send(response, oversize);
    }
    if (options.localPaths && (await options.localPaths(request, response, (max) => readBody(request, max))))
      return;
    const body = await readBody(request, MAX_BODY_BYTES);
    if (body === null)
      return send(response, errorResponse('PAYLOAD_TOO_LARGE', 'Request body too large', requestId));

    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = (request.method ?? 'GET').toUpperCase();
    const matched = match(method, url.pathname);
    if (matched.kind !== 'route') {
      const refusal = unmatchedResponse(matched, method, url.pathname, requestId);
      return send(response, method === 'HEAD' ? withoutBody(refusal) : refusal);
    }

    let pathParameters: Record<string, string>;
    try {
      pathParameters = Object.fromEntries(
        Object.entries(matched.rawPathParameters).map(([name, value]) => [name, decodeURIComponent(value)]),
      );
    } catch {
      return send(response, errorResponse('VALIDATION_ERROR', 'Malformed path parameter', requestId));
    }
    const handler = await options.loadHandler(matched.route.route.handler);
    const event = toEvent(request, url, method, matched.route, pathParameters, body, requestId);
    const result = await handler(event, lambdaContext(matched.route.route.operationId));
    send(response, result);
  }
}

const tooLargeMessage = (what: string) =>
  `${what} exceed ${MAX_REQUEST_LINE_AND_HEADERS_BYTES} bytes (the API Gateway limit)`;

/** API Gateway's limit on the request line and header values, in the envelope; null within it. */
function requestLineAndHeadersCheck(
  request: IncomingMessage,
  requestId: string,
): APIGatewayProxyStructuredResultV2 | null {
  const line = Buffer.byteLength(`${request.method ?? ''} ${request.url ?? ''} HTTP/${request.httpVersion}`);
  if (line > MAX_REQUEST_LINE_AND_HEADERS_BYTES)
    return errorResponse('URI_TOO_LONG', tooLargeMessage('The request line'), requestId);
  let total = line;
  for (let i = 1; i < request.rawHeaders.length; i += 2) total += Buffer.byteLength(request.rawHeaders[i]!);
  if (total > MAX_REQUEST_LINE_AND_HEADERS_BYTES)
    return errorResponse(
      'HEADERS_TOO_LARGE',
      tooLargeMessage('The request line and header values'),
      requestId,
    );
  return null;
}

function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function toEvent(
  request: IncomingMessage,
  url: URL,
  method: string,
  route: HttpRoute,
  pathParameters: Record<string, string>,
  body: Buffer,
  requestId: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie')
      headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const contentType = headers['content-type'] ?? '';
  const textual = contentType === '' || /json|text|xml|x-www-form-urlencoded/.test(contentType);
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `${method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(pathParameters).length ? pathParameters : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: `${method} ${route.path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? (textual ? body.toString('utf8') : body.toString('base64')) : undefined,
    isBase64Encoded: body.length > 0 && !textual,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | number | boolean> = { ...(result.headers ?? {}) };
  if (result.cookies?.length) headers['set-cookie'] = result.cookies.join(', ');
  const body =
    result.body === undefined
      ? undefined
      : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  response.writeHead(result.statusCode ?? 200, headers as Record<string, string>);
  response.end(body);
}
