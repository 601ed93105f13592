import type { Permissions } from '../shared/routes/route.js';

/**
 * The esbuild options of every Lambda bundle, in one place: lib/service-function.ts hands them to
 * NodejsFunction and scripts/bundle-budget.ts builds with the very same options to measure what ships.
 */
export const BUNDLE_OPTIONS = {
  format: 'esm',
  /** Lambda nodejs22.x on arm64 (esbuild targets a language level, not an architecture). */
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  // Bundled ESM still meets CommonJS dependencies that call require().
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  minify: true,
  // Not keepNames: it costs ~3 % of every bundle; the errors that reach logs name themselves (shared/errors.ts).
  keepNames: false,
  sourceMap: true,
  sourcesContent: false,
  /**
   * The AWS SDK v3 is not bundled: the nodejs22.x runtime ships it (docs/benchmarks.md "Lean functions" for
   * the measurements, docs/deploy.md for the version trade-off). Everything else is bundled and tree-shaken.
   */
  externalModules: ['@aws-sdk/*'],
} as const;

/**
 * Minified bundle budgets (bytes of index.mjs, source map excluded), checked by `npm run bundle:budget`. Workers
 * 512 KiB (was 500): the certificate worker is pdf-lib, its fonts and pako (~430 KiB) plus the service, and the
 * key history (issue 15) and the Idempotency-Key mark of every conditional write took it to 502 KiB; every other
 * worker is under 60 KiB.
 */
export const BUNDLE_BUDGET_BYTES = { route: 300 * 1024, worker: 512 * 1024 } as const;

/**
 * Functions with a budget of their own. getOpenApi renders every route's schemas, so it grows with the interface
 * (238 KiB in issue 11, 303 KiB with the verifiable log, witnesses and faults of 2026-11-28); the next step is to
 * render the description at build time and serve it as a static document.
 */
export const BUNDLE_BUDGET_OVERRIDES: Readonly<Record<string, number>> = { getOpenApi: 330 * 1024 };

/** SDK clients a function's bundle contains, from the resources its Permissions grant. */
export interface BundledClients {
  s3: boolean;
  kms: boolean;
  sqs: boolean;
}

/** Permission keys that are not buckets; every other key (immutable, uploads, certificates...) is an S3 grant. */
const NOT_BUCKETS = new Set(['main', 'ledger', 'sign', 'signCheckpoints', 'publicKey', 'queues']);

export function bundledClients(permissions: Permissions): BundledClients {
  const granted = (value: unknown) => value !== undefined && value !== false;
  return {
    s3: Object.entries(permissions).some(([key, value]) => !NOT_BUCKETS.has(key) && granted(value)),
    kms: granted(permissions.sign) || granted(permissions.signCheckpoints) || granted(permissions.publicKey),
    // An appender also sends: its records to their subscribers, and its batches to the log-checkpoint worker.
    sqs:
      (permissions.queues?.length ?? 0) > 0 ||
      permissions.ledger === 'append' ||
      permissions.ledger === 'restore',
  };
}

/**
 * The esbuild `define`s that leave unused clients out (read in shared/runtime/aws-deps.ts). GLS_BUNDLE_SIGN: a
 * function that may only read the public key gets the bare KMS signer, without the Sign throttling wrapper.
 */
export function bundleDefines(permissions: Permissions): Record<string, string> {
  const granted = (value: unknown) => value !== undefined && value !== false;
  const clients = bundledClients(permissions);
  const signs = permissions.sign !== undefined && permissions.sign !== false;
  return {
    'process.env.GLS_BUNDLE_S3': JSON.stringify(String(clients.s3)),
    'process.env.GLS_BUNDLE_KMS': JSON.stringify(String(clients.kms)),
    'process.env.GLS_BUNDLE_SQS': JSON.stringify(String(clients.sqs)),
    'process.env.GLS_BUNDLE_SIGN': JSON.stringify(String(signs)),
    // Only the log's integrator signs checkpoints: every other function leaves the Ed25519 KMS signer out.
    'process.env.GLS_BUNDLE_NOTE_SIGN': JSON.stringify(String(granted(permissions.signCheckpoints))),
  };
}
