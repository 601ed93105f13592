import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { lambdaBuildOptions, REPO_ROOT } from '../../../scripts/lambda-bundle.js';
import { ROUTES } from '../../../shared/routes.js';

/**
 * Issue 11, part 6: a function that touches no table does not load the DynamoDB client, at init or ever, and
 * one that does loads it on first use, not at init. The functions are bundled as the stack bundles them
 * (scripts/lambda-bundle.ts) and run in a fresh Node process whose module resolution is watched: the
 * SDK is external, so every SDK package the bundle loads is resolved, and reported, by name.
 */
const OUT = join(REPO_ROOT, '.tmp', 'lean-cold-start-test');
const DYNAMODB = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'];

/** Registered with `node --import`: reports each @aws-sdk/* package the process resolves on stderr. */
const WATCH_SDK = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@aws-sdk/')) process.stderr.write('RESOLVED ' + specifier + '\\\\n');
  return next(specifier, context);
}\`));
`;

const routeNamed = (operationId: string) => ROUTES.find((route) => route.operationId === operationId)!;

async function bundle(operationId: string): Promise<{ file: string; metafile: Metafile }> {
  const route = routeNamed(operationId);
  const file = join(OUT, operationId, 'index.mjs');
  const { metafile } = await build(
    lambdaBuildOptions({ module: route.handler, permissions: route.permissions, outfile: file }),
  );
  return { file, metafile };
}

interface Run {
  /** SDK packages resolved while the bundle was imported (the function's init). */
  atInit: string[];
  /** SDK packages resolved while the handler ran `event`. */
  atInvoke: string[];
  response: { statusCode: number; body?: string } | null;
}

/** Imports the bundle in a fresh process (its init), then calls its handler with `event` if one is given. */
function run(file: string, event?: unknown, env: Record<string, string> = {}): Run {
  const script = `
    const { handler } = await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stderr.write('INIT DONE\\n');
    const event = ${JSON.stringify(event ?? null)};
    const response = event ? await handler(event, { getRemainingTimeInMillis: () => 30000 }) : null;
    process.stdout.write(JSON.stringify(response));`;
  const child = spawnSync(
    process.execPath,
    ['--import', pathToFileURL(join(OUT, 'watch-sdk.mjs')).href, '--input-type=module', '-e', script],
    { env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR', ...env }, encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`The bundle failed: ${child.stderr}`);
  const lines = child.stderr.split('\n');
  const initDone = lines.indexOf('INIT DONE');
  expect(initDone).toBeGreaterThanOrEqual(0);
  const resolved = (part: string[]) =>
    part.filter((line) => line.startsWith('RESOLVED ')).map((line) => line.slice('RESOLVED '.length));
  return {
    atInit: resolved(lines.slice(0, initDone)),
    atInvoke: resolved(lines.slice(initDone + 1)),
    response: JSON.parse(child.stdout) as Run['response'],
  };
}

/** How the bundle imports each external @aws-sdk/* package: 'import-statement' (at init) or 'dynamic-import'. */
function sdkImports(metafile: Metafile): Record<string, string[]> {
  const imports: Record<string, string[]> = {};
  for (const output of Object.values(metafile.outputs))
    for (const { path, kind } of output.imports)
      if (path.startsWith('@aws-sdk/')) imports[path] = [...new Set([...(imports[path] ?? []), kind])];
  return imports;
}

const healthEvent = {
  version: '2.0',
  routeKey: 'GET /v1/health',
  rawPath: '/v1/health',
  headers: {},
  requestContext: { requestId: 'cold-start-test', http: { method: 'GET', path: '/v1/health' } },
  isBase64Encoded: false,
};

describe('lean cold starts: the DynamoDB client is loaded on first use, never at init', () => {
  beforeAll(() => {
    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, 'watch-sdk.mjs'), WATCH_SDK);
  });
  afterAll(() => rmSync(OUT, { recursive: true, force: true }));

  it('GET /v1/health loads no SDK package at init; its dependency checks load their clients when asked', async () => {
    const { file, metafile } = await bundle('getHealth');
    // Health asks each dependency (issue 32): every client is in the bundle's reach, behind a dynamic import only.
    const imports = sdkImports(metafile);
    for (const name of DYNAMODB) expect(imports[name]).toEqual(['dynamic-import']);
    expect(Object.values(imports).flat()).toEqual(Object.values(imports).map(() => 'dynamic-import'));
    const health = run(file, healthEvent);
    // Nothing is configured or listening here: every check fails, and the answer is the degraded report.
    expect(health.response?.statusCode).toBe(503);
    expect(JSON.parse(health.response?.body ?? 'null')).toMatchObject({ status: 'degraded' });
    expect(health.atInit).toEqual([]);
  });

  it('the signing-key route does not load DynamoDB at init', async () => {
    const { file, metafile } = await bundle('getSigningKey');
    for (const name of DYNAMODB) expect(sdkImports(metafile)[name]).toEqual(['dynamic-import']);
    expect(run(file).atInit).toEqual([]);
  });

  it('a route that reads a table loads DynamoDB with its first request, not at init', async () => {
    const { file, metafile } = await bundle('listIncidents');
    const imports = sdkImports(metafile);
    expect(Object.values(imports).flat()).toEqual(Object.values(imports).map(() => 'dynamic-import'));
    const listing = run(
      file,
      {
        ...healthEvent,
        routeKey: 'GET /v1/incidents',
        rawPath: '/v1/incidents',
        // An API key of the right format: authenticating it reads the main table.
        headers: { 'x-service-key': 'gls_0000000000000000000000000000000000000000000' },
        requestContext: { requestId: 'cold-start-test', http: { method: 'GET', path: '/v1/incidents' } },
      },
      // Nothing listens there: the lookup fails fast, after the client is loaded (the answer is a 500).
      { MAIN_TABLE_NAME: 'main', LEDGER_TABLE_NAME: 'ledger', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' },
    );
    expect(listing.atInit).toEqual([]);
    expect(listing.atInvoke).toEqual(expect.arrayContaining(DYNAMODB));
  });
});
