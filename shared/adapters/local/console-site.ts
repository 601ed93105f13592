import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

/**
 * The local stack's web console (issue 16): console/dist served at /console/, every path without a file
 * extension answered with index.html (the single-page app routes deep links itself), and /console/config.json
 * generated for the origin the browser used (request-origin.ts: localhost, 127.0.0.1, a LAN name or
 * PUBLIC_BASE_URL alike, issue 33), so that every address in it is the page's own and the CSP stays 'self'.
 * Headers as CloudFront's response headers policy sets them in AWS (lib/console.ts): a CSP without inline
 * script, no framing, nosniff, no referrer.
 */
export const CONSOLE_PREFIX = '/console';

/** Read by the console at start-up (console/src/app/config.ts). */
export interface ConsoleSettings {
  apiBaseUrl: string;
  issuer: string;
  discoveryUrl: string;
  clientId: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  logoutUrl: string | null;
  localDevelopment: boolean;
}

/**
 * The console's CSP locally: the API and the issuer are the page's own origin ('self'); documents shown in a
 * frame come from the object store's presigned URLs, on the server's own base URL (`objectsOrigin`, as AWS adds
 * the documents bucket to frame-src), which is another origin when the console is opened at another address.
 */
export function consoleCsp(objectsOrigin?: string): string {
  const frames = objectsOrigin ? `'self' ${objectsOrigin}` : "'self'";
  return (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    `frame-src ${frames}; object-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'`
  );
}

function consoleHeaders(csp: string): Record<string, string> {
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export function consoleSiteHandler(options: {
  /** console/dist */
  distDir: string;
  /** The origin the browser used, or null when its Host is not trusted (request-origin.ts). */
  originOf: (request: IncomingMessage) => string | null;
  /** config.json for a console opened at `origin`. */
  settings: (origin: string) => ConsoleSettings;
  /** The origin of the object store's presigned URLs (the server's base URL), allowed in frame-src. */
  objectsOrigin?: string;
}): (
  request: IncomingMessage,
  response: ServerResponse,
  readBody: (maxBytes: number) => Promise<Buffer | null>,
) => Promise<boolean> {
  const root = normalize(options.distDir);
  const headers = consoleHeaders(consoleCsp(options.objectsOrigin));
  const send = (
    response: ServerResponse,
    head: boolean,
    status: number,
    type: string,
    body: string | Buffer,
    cache: string,
  ): true => {
    response.writeHead(status, {
      ...headers,
      'content-type': type,
      'content-length': Buffer.byteLength(body),
      'cache-control': cache,
    });
    response.end(head ? undefined : body);
    return true;
  };
  return async (request, response, readBody) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== CONSOLE_PREFIX && !url.pathname.startsWith(`${CONSOLE_PREFIX}/`)) return false;
    await readBody(0);
    const head = request.method === 'HEAD';
    if (request.method !== 'GET' && !head) {
      response.writeHead(405, { allow: 'GET, HEAD', ...headers });
      response.end();
      return true;
    }
    if (url.pathname === CONSOLE_PREFIX) {
      response.writeHead(308, { location: `${CONSOLE_PREFIX}/${url.search}` });
      response.end();
      return true;
    }
    let relative: string;
    try {
      relative = decodeURIComponent(url.pathname.slice(CONSOLE_PREFIX.length + 1));
    } catch {
      return send(response, head, 400, 'text/plain; charset=utf-8', 'Malformed path', 'no-store');
    }
    if (relative === 'config.json') {
      const origin = options.originOf(request);
      if (origin === null)
        return send(
          response,
          head,
          421,
          'text/plain; charset=utf-8',
          `The local stack does not trust the address ${request.headers.host ?? '(none)'} for the console's ` +
            'sign-in: open it at localhost or 127.0.0.1, or add this host name to ALLOWED_HOSTS.',
          'no-store',
        );
      return send(response, head, 200, TYPES['.json']!, JSON.stringify(options.settings(origin)), 'no-store');
    }
    const file = normalize(join(root, relative));
    if (file !== root && !file.startsWith(root + sep))
      return send(response, head, 404, 'text/plain; charset=utf-8', 'Not found', 'no-store');
    const extension = extname(relative);
    if (relative !== '' && extension !== '') {
      // An asset: hashed file names never change, so they may be cached for good; a missing one is a 404.
      const body = await readFile(file).catch(() => null);
      if (!body) return send(response, head, 404, 'text/plain; charset=utf-8', 'Not found', 'no-store');
      const cache = relative.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return send(response, head, 200, TYPES[extension] ?? 'application/octet-stream', body, cache);
    }
    // A page of the single-page app (or a deep link to one): index.html, always revalidated.
    const index = join(root, 'index.html');
    if (!existsSync(index))
      return send(
        response,
        head,
        503,
        'text/plain; charset=utf-8',
        'The console is not built: run npx vite build --config console/vite.config.ts (npm start builds it).',
        'no-store',
      );
    return send(response, head, 200, TYPES['.html']!, await readFile(index), 'no-cache');
  };
}
