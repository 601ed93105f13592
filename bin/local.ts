/**
 * The embedded local stack (`npm start`): DynamoDB Local, a filesystem object store, a P-256 signer, in-process
 * queues and timers, and every route of the route table served on http://localhost:$PORT through the same
 * handler modules the Lambdas run. Configuration: PORT (3000), DATA_DIR (.data), LOG_LEVEL (WARN),
 * OUTBOX_SWEEP_INTERVAL_SECONDS (60), OUTBOX_GRACE_SECONDS (30), PUBLIC_BASE_URL (the server's own URL),
 * LOCAL_INSTANCES (0: handlers run in this thread; N: on N isolated Lambda-like instances, one invocation each at
 * a time), LOCAL_WORKER_INSTANCES (with LOCAL_INSTANCES: instances of the workers' own; 0, the default, shares
 * them), SIGNER_LATENCY_MS (0) and SIGNER_RATE_LIMIT (0: unlimited) for a signer that behaves like KMS,
 * LOCAL_DYNAMO_METRICS (false; true counts DynamoDB reads into GET /__local/metrics, for bench/reads),
 * LOCAL_STREAM_WORKERS (true; false stops polling the ledger table's stream, i.e. the tamper watch), and the
 * dependency budgets of shared/runtime/config.ts (DEPENDENCY_TIMEOUT_MS and the rest, issue 32). Its DynamoDB Local
 * is supervised (restarted on the same data and port when it dies), and POST/DELETE /__local/faults make the
 * signer, the object store or the queue fail or stall for a while (docs/operations.md, "Faults").
 * It also serves the web console at /console/ (console/dist, built by npm start when stale) and the dev issuer's
 * OIDC sign-in for it under /dev-issuer/ (docs/console.md), at whatever address the browser used: HOST (the
 * address to listen on, 127.0.0.1; 0.0.0.0 for other machines on the network) and ALLOWED_HOSTS (host names,
 * beyond localhost, IP addresses, this machine's name and PUBLIC_BASE_URL's, at which the console may sign in).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyStructuredResultV2, DynamoDBBatchResponse, SQSBatchResponse } from 'aws-lambda';
import { createApiServer } from '../shared/adapters/local/api-gateway.js';
import { consoleSiteHandler } from '../shared/adapters/local/console-site.js';
import {
  consoleUrls,
  CONSOLE_CLIENT_ID,
  devAuthorizationHandler,
} from '../shared/adapters/local/dev-authorization.js';
import { DevIssuer } from '../shared/adapters/local/dev-issuer.js';
import { ensureTables, superviseDynamoLocal } from '../shared/adapters/local/dynamodb-local.js';
import { FaultSwitch, parseFaultRequest } from '../shared/adapters/local/fault-switch.js';
import { FsObjectStore } from '../shared/adapters/local/fs-object-store.js';
import { handlerModules } from '../shared/adapters/local/handler-modules.js';
import { InstancePool, type InstanceKind } from '../shared/adapters/local/instance-pool.js';
import { isolateHeap } from '../shared/adapters/local/instance-messages.js';
import { LocalNoteSigner } from '../shared/adapters/local/local-note-signer.js';
import { LocalSigner } from '../shared/adapters/local/local-signer.js';
import { presignedUploadHandler, UrlSigningSecret } from '../shared/adapters/local/presigned-uploads.js';
import { LocalQueue, lambdaContext } from '../shared/adapters/local/local-queue.js';
import { SignerQuota } from '../shared/adapters/local/signer-quota.js';
import { parseAllowedHosts, requestOrigin } from '../shared/adapters/local/request-origin.js';
import { LocalStreamPoller, localStreamClients } from '../shared/adapters/local/stream-poller.js';
import { DynamoMeter } from '../shared/adapters/local/dynamo-meter.js';
import { httpRoutes } from '../shared/routes.js';
import { ENV, intEnv, optionalEnv } from '../shared/runtime/config.js';
import { installDeps } from '../shared/runtime/deps.js';
import {
  createLocalDeps,
  DEV_ISSUER,
  LOCAL_TABLES,
  localPaths,
  type LocalStackInfo,
} from '../shared/runtime/local-deps.js';
import { logger } from '../shared/runtime/logger.js';
import { TABLES } from '../shared/store/tables.js';
import { platformWitnesses } from '../shared/services/witness-registry.js';
import { WORKERS } from '../shared/workers/table.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
logger.setLogLevel((process.env.LOG_LEVEL as 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | undefined) ?? 'WARN');

const dataDir = resolve(optionalEnv('DATA_DIR', '.data'));
const port = intEnv('PORT', 3000);
const listenHost = optionalEnv('HOST', '127.0.0.1');
// The console and its sign-in answer at the origin the browser used, when its Host is one a browser could not
// have been sent to by another site (shared/adapters/local/request-origin.ts).
const originOf = requestOrigin({
  publicBaseUrl: process.env[ENV.publicBaseUrl] || undefined,
  hostname: hostname(),
  allowedHosts: parseAllowedHosts(optionalEnv('ALLOWED_HOSTS', '')),
});
const instanceCount = intEnv(ENV.localInstances, 0);
// Instances of the workers' own (LOCAL_WORKER_INSTANCES; 0: they share the routes'), as in AWS.
const workerInstanceCount = Math.max(0, intEnv(ENV.localWorkerInstances, 0));
// One quota and one set of Sign counters for the whole stack, in shared memory every instance draws on.
const signerQuota = SignerQuota.create(intEnv(ENV.signerRateLimit, 0));
// LOCAL_DYNAMO_METRICS=true: DynamoDB reads counted across every instance (bench/reads), in /__local/metrics.
const dynamoMeter =
  optionalEnv('LOCAL_DYNAMO_METRICS', 'false') === 'true' ? DynamoMeter.create() : undefined;
// Worker invocations by worker name (a fixed set: shared/workers/table.ts), in /__local/metrics (bench/log).
const workerInvocations: Record<string, number> = {};
// The fault switch (POST /__local/faults): one for the whole stack, in shared memory every instance reads.
const faults = FaultSwitch.create();
const paths = localPaths(dataDir);
mkdirSync(dataDir, { recursive: true });

/** Runs a handler module on an event: in this thread, or on a free instance (whose index it reports). */
type Invoke = (
  module: string,
  name: string,
  event: unknown,
  kind: InstanceKind,
) => Promise<{ value: unknown; instance?: number; runMs?: number }>;

const handlerOf = handlerModules(root);

const dynamo = await superviseDynamoLocal(paths.dynamodb, paths.dynamoPidFile, {
  warn: (message, extra) => logger.warn(message, { ...extra }),
});
process.on('exit', () => dynamo.current().process.kill('SIGKILL'));
await ensureTables(dynamo.endpoint, TABLES, LOCAL_TABLES);

const devIssuer = await DevIssuer.open(paths.devIssuerKey);
let markReady: () => void = () => undefined;
const ready = new Promise<void>((done) => (markReady = done));
// Presigned object URLs (uploads) are answered by the object store itself, not by a route handler.
const presignedUploads = presignedUploadHandler({
  secret: new UrlSigningSecret(paths.urlSigningSecret),
  sink: new FsObjectStore(paths.objects),
});

let invoke: Invoke = () => Promise.reject(new Error('The local stack is not ready'));
let consoleSite: ReturnType<typeof consoleSiteHandler> | undefined = undefined;
let devAuthorization: ReturnType<typeof devAuthorizationHandler> | undefined = undefined;
/** What GET /__local/memory adds to the process's memory: the queue's and the pool's state (once they exist). */
let stackMemory: () => Record<string, unknown> = () => ({});
/**
 * How late this thread's event loop ran since the last GET /__local/memory (bench/soak): the thread that serves
 * every request's HTTP, the queue, the stream poller and the schedules; a stall here delays every answer.
 */
const mainLoopDelay = monitorEventLoopDelay({ resolution: 10 });
mainLoopDelay.enable();
function takeLoopDelay(): { p50: number; p99: number; max: number } {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const delay = {
    p50: ms(mainLoopDelay.percentile(50)),
    p99: ms(mainLoopDelay.percentile(99)),
    max: ms(mainLoopDelay.max),
  };
  mainLoopDelay.reset();
  return delay;
}

const server = createApiServer({
  routes: httpRoutes(),
  loadHandler: async (module) => {
    await ready;
    return async (event, context) => {
      const { value, instance, runMs } = await invoke(module, context.functionName, event, 'route');
      const result = value as APIGatewayProxyStructuredResultV2;
      if (instance === undefined) return result;
      // Which instance ran it, and for how long (Lambda's duration: the wait for a free instance, which AWS does
      // not have as it scales out, is not in it).
      const headers = { 'x-local-instance': String(instance), 'x-local-run-ms': String(runMs) };
      return { ...result, headers: { ...result.headers, ...headers } };
    };
  },
  localPaths: async (request, response, readBody) => {
    if (devAuthorization && (await devAuthorization(request, response, readBody))) return true;
    if (consoleSite && (await consoleSite(request, response, readBody))) return true;
    // The stack's Sign counters (and DynamoDB reads, when metered), across every instance (benches, tests).
    if (request.method === 'GET' && request.url === '/__local/metrics') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          ...signerQuota.counts(),
          ...dynamoMeter?.counts(),
          dynamoRestarts: dynamo.restarts(),
          workerInvocations,
        }),
      );
      return true;
    }
    // Memory by where it is (issue 32, bench/soak): the process, this thread's heap, each instance's heap as last
    // reported, and what the queue and the pool hold; tells a leak (heaps' used keeps growing) from V8 sizing.
    if (request.method === 'GET' && request.url === '/__local/memory') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          process: process.memoryUsage(),
          main: isolateHeap(),
          mainLoopDelayMs: takeLoopDelay(),
          ...stackMemory(),
        }),
      );
      return true;
    }
    if (request.url === '/__local/faults') return answerFaults(request.method, response, readBody);
    return presignedUploads(request, response, readBody);
  },
});
/**
 * The fault switch's endpoint (issue 32): POST sets a fault (`{"dependency": "signer"|"objects"|"queue", "mode":
 * "fail"|"stall", "forMs": n}`, 204), DELETE clears every fault (204), GET lists those in force.
 */
async function answerFaults(
  method: string | undefined,
  response: ServerResponse,
  readBody: (maxBytes: number) => Promise<Buffer | null>,
): Promise<true> {
  const json = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (method === 'GET') return (json(200, faults.snapshot()), true);
  if (method === 'DELETE') {
    faults.clear();
    response.writeHead(204).end();
    return true;
  }
  if (method !== 'POST') {
    response.writeHead(405, { allow: 'GET, POST, DELETE' }).end();
    return true;
  }
  let body: unknown;
  try {
    body = JSON.parse((await readBody(4096))?.toString('utf8') ?? '');
  } catch {
    return (json(400, { error: { code: 'VALIDATION_ERROR', message: 'The body is not JSON' } }), true);
  }
  const fault = parseFaultRequest(body);
  if ('error' in fault)
    return (json(400, { error: { code: 'VALIDATION_ERROR', message: fault.error } }), true);
  faults.set(fault.dependency, fault.mode, fault.forMs);
  logger.warn('Local fault set', fault);
  response.writeHead(204).end();
  return true;
}

await new Promise<void>((listening) => server.listen(port, listenHost, listening));
// The server's own URL (the API's JWKS, presigned object URLs, certificates' default links): localhost, unless
// it listens on one address other than the loopback or every interface.
const ownHost = ['127.0.0.1', '::1', '0.0.0.0', '::', 'localhost'].includes(listenHost)
  ? 'localhost'
  : isIP(listenHost) === 6
    ? `[${listenHost}]`
    : listenHost;
const baseUrl = `http://${ownHost}:${(server.address() as AddressInfo).port}`;
// The web console (issue 16): console/dist at /console/ with its generated config.json, and the dev issuer's
// sign-in for it (authorization code + PKCE; local development only, Cognito's hosted UI in AWS).
consoleSite = consoleSiteHandler({
  distDir: resolve(root, 'console/dist'),
  originOf,
  // Presigned document URLs are on the server's own base URL, framed by the review page.
  objectsOrigin: baseUrl,
  settings: (origin) => {
    const urls = consoleUrls(origin);
    return {
      apiBaseUrl: origin,
      issuer: DEV_ISSUER,
      discoveryUrl: urls.discoveryUrl,
      clientId: CONSOLE_CLIENT_ID,
      redirectUri: urls.redirectUri,
      postLogoutRedirectUri: urls.home,
      logoutUrl: null,
      localDevelopment: true,
    };
  },
});
devAuthorization = devAuthorizationHandler({
  issuer: devIssuer,
  deps: createLocalDeps({ dataDir, dynamoEndpoint: dynamo.endpoint, baseUrl }),
  originOf,
});
// Certificates link to this server's verification page unless PUBLIC_BASE_URL names another address.
process.env[ENV.publicBaseUrl] ||= baseUrl;

// A development stack: webhooks may target the developer's own machine (http or https on loopback). AWS
// never sets this, so production refuses loopback and plain http.
process.env.WEBHOOK_ALLOW_INSECURE_LOOPBACK ??= 'true';
// Platform-wide witnesses (PLATFORM_WITNESSES, issue 31): a malformed setting stops the stack here, not a submission.
platformWitnesses();
const queue = new LocalQueue();
let pool: InstancePool | undefined;
if (instanceCount === 0) {
  // In-process (the default): every invocation runs in this thread, sharing one composition root.
  installDeps(
    createLocalDeps({
      dataDir,
      dynamoEndpoint: dynamo.endpoint,
      baseUrl,
      queue,
      signerQuota,
      faults,
      ...(dynamoMeter ? { dynamoMeter } : {}),
    }),
  );
  invoke = async (module, name, event) => {
    const handler = await handlerOf(module);
    return { value: await handler(event, lambdaContext(name)) };
  };
} else {
  // The signing key is created here once, before any instance reads it.
  new LocalSigner(paths.signingKey);
  new LocalNoteSigner(paths.checkpointKey);
  const instancePool = new InstancePool(
    { route: instanceCount, worker: workerInstanceCount },
    {
      root,
      dataDir,
      dynamoEndpoint: dynamo.endpoint,
      baseUrl,
      signerQuota: signerQuota.buffer,
      faults: faults.buffer,
      ...(dynamoMeter ? { dynamoMeter: dynamoMeter.buffer } : {}),
    },
    (name, message, delaySeconds) => queue.send(name, message, { delaySeconds }),
    { freeze: optionalEnv(ENV.localFreezeBetweenInvocations, 'false') === 'true' },
  );
  pool = instancePool;
  await instancePool.start();
  invoke = (module, name, event, kind) => instancePool.invoke(module, name, event, kind);
}

/** Runs a worker on an event, counted in workerInvocations. */
const invokeWorker = (worker: (typeof WORKERS)[number], event: unknown) => {
  workerInvocations[worker.name] = (workerInvocations[worker.name] ?? 0) + 1;
  return invoke(worker.handler, worker.name, event, 'worker');
};

const timers: NodeJS.Timeout[] = [];
// LOCAL_STREAM_WORKERS=false leaves the stream workers (the tamper watch) off: for a stack whose users change
// ledger rows by hand on purpose (the shared integration stack's verification and restore tests).
const streamWorkers = optionalEnv('LOCAL_STREAM_WORKERS', 'true') !== 'false';
const pollers: LocalStreamPoller[] = [];
const streamClients = localStreamClients(dynamo.endpoint);
for (const worker of WORKERS) {
  const { trigger } = worker;
  if (trigger.kind === 'queue') {
    queue.register(
      trigger.queue,
      async (event) => (await invokeWorker(worker, event)).value as SQSBatchResponse | void,
    );
  } else if (trigger.kind === 'stream') {
    if (!streamWorkers) continue;
    // DynamoDB Local serves the Streams API: polled here, handed to the same handler as the event source mapping.
    const poller = new LocalStreamPoller({
      ...streamClients,
      tableName: LOCAL_TABLES[trigger.table],
      sortKeyAttribute: TABLES.find((table) => table.name === trigger.table)!.sortKey,
      filters: trigger.filters,
      batchSize: trigger.batchSize,
      retryAttempts: trigger.retryAttempts,
      checkpointFile: resolve(dataDir, `stream-${worker.name}.json`),
      deliver: async (event) => (await invokeWorker(worker, event)).value as DynamoDBBatchResponse | void,
    });
    poller.start();
    pollers.push(poller);
  } else {
    const run = () =>
      invokeWorker(worker, { source: 'local.timer', 'detail-type': 'Scheduled Event' }).catch(
        (error: unknown) => logger.error(`Scheduled worker ${worker.name} failed`, { error: error as Error }),
      );
    const seconds = intEnv(trigger.localIntervalEnv, trigger.everyMinutes * 60);
    timers.push(setInterval(run, Math.max(1, seconds) * 1000));
    void run();
  }
}

stackMemory = () => ({ queue: queue.stats(), ...(pool ? { pool: pool.stats() } : {}) });

const info: LocalStackInfo = { baseUrl, dynamoEndpoint: dynamo.endpoint, pid: process.pid };
writeFileSync(paths.stackFile, JSON.stringify(info, null, 2));
markReady();
console.log(
  `Governance Ledger Service listening on ${baseUrl} (DATA_DIR=${dataDir}, ` +
    `${instanceCount === 0 ? 'handlers in-process' : `${instanceCount} local instances${workerInstanceCount > 0 ? ` and ${workerInstanceCount} for workers` : ''}`})`,
);
console.log(`Web console: ${consoleUrls(baseUrl).home}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal} received, shutting down`);
  for (const timer of timers) clearInterval(timer);
  server.close();
  server.closeAllConnections();
  await Promise.all([queue.close(), ...pollers.map((poller) => poller.close())]);
  await pool?.close();
  await dynamo.stop();
  rmSync(paths.stackFile, { force: true });
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
