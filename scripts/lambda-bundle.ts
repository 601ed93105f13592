import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildOptions } from 'esbuild';
import { BUNDLE_OPTIONS, bundleDefines } from '../lib/bundling.js';
import type { Permissions } from '../shared/routes/route.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface LambdaBundle {
  /** Handler module relative to the repository root, without extension (a route's or worker's `handler`). */
  module: string;
  permissions: Permissions;
  /** Where index.mjs goes: inside the repository, so externals resolve from node_modules as in Lambda. */
  outfile: string;
  /** Bundle @aws-sdk/* too (the configuration before issue 7). */
  bundleSdk?: boolean;
  /** Every SDK client in the function (no per-function defines). */
  allClients?: boolean;
}

/**
 * The esbuild options of a function exactly as the CDK stack builds it (lib/bundling.ts, lib/service-function.ts),
 * for scripts/bundle-budget.ts and the tests that check what a bundle loads.
 */
export function lambdaBuildOptions(bundle: LambdaBundle): BuildOptions & { metafile: true } {
  const o = BUNDLE_OPTIONS;
  return {
    entryPoints: [join(REPO_ROOT, `${bundle.module}.ts`)],
    outfile: bundle.outfile,
    bundle: true,
    format: o.format,
    target: o.target,
    platform: o.platform,
    mainFields: [...o.mainFields],
    banner: { js: o.banner },
    minify: o.minify,
    keepNames: o.keepNames,
    sourcemap: o.sourceMap ? 'external' : false,
    sourcesContent: o.sourcesContent,
    external: bundle.bundleSdk ? [] : [...o.externalModules],
    define: bundle.allClients ? {} : bundleDefines(bundle.permissions),
    metafile: true,
    logLevel: 'error',
  };
}
