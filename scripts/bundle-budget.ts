/**
 * Builds every function of the route table and the worker list with the bundling options the CDK stack uses
 * (lib/bundling.ts), reports each bundle's minified size against its budget and fails when one is over.
 *
 *   npm run bundle:budget                       sizes and budgets (part of npm test), and the median time to
 *                                               import each bundle in a fresh Node process, over 5 processes
 *                                               (printed, never asserted: it depends on the machine's load)
 *   npm run bundle:budget -- --cold-start 9     the import time over 9 processes per bundle; 0 skips it
 *   npm run bundle:budget -- --baseline DIR     also the import time of the bundles of the same names in DIR
 *                                               (DIR/<function>/index.mjs, e.g. a copy of .tmp/bundles made
 *                                               at an older commit), interleaved run by run with the new ones
 *   npm run bundle:budget -- --bundle-sdk       bundle @aws-sdk/* too (the configuration before issue 7)
 *   npm run bundle:budget -- --all-clients      every SDK client in every function (no per-function defines)
 *   npm run bundle:budget -- --only getHealth,ledger-archive   just these functions
 *   npm run bundle:budget -- --markdown         print the table as Markdown (for docs/benchmarks.md)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_BUDGET_BYTES, BUNDLE_BUDGET_OVERRIDES } from '../lib/bundling.js';
import { routeFunctionPermissions, type Permissions } from '../shared/routes/route.js';
import { ROUTES, UNMATCHED_ROUTE } from '../shared/routes.js';
import { WORKERS } from '../shared/workers/table.js';
import { lambdaBuildOptions, REPO_ROOT } from './lambda-bundle.js';

// Inside the repository, so externals resolve to node_modules as they resolve to the runtime's in Lambda.
const OUT_DIR = join(REPO_ROOT, '.tmp', 'bundles');

const args = process.argv.slice(2);
const bundleSdk = args.includes('--bundle-sdk');
const markdown = args.includes('--markdown');
const allClients = args.includes('--all-clients');
const coldStartIndex = args.indexOf('--cold-start');
const coldStartRuns = coldStartIndex >= 0 ? Number(args[coldStartIndex + 1] ?? 5) : 5;
const baselineIndex = args.indexOf('--baseline');
const baselineDir = baselineIndex >= 0 ? resolve(args[baselineIndex + 1] ?? '') : undefined;

interface Target {
  name: string;
  kind: 'route' | 'worker';
  module: string;
  permissions: Permissions;
}

const allTargets: Target[] = [
  ...ROUTES.map((route) => ({
    name: route.operationId,
    kind: 'route' as const,
    module: route.handler,
    permissions: routeFunctionPermissions(route),
  })),
  {
    name: UNMATCHED_ROUTE.name,
    kind: 'route' as const,
    module: UNMATCHED_ROUTE.handler,
    permissions: {},
  },
  ...WORKERS.map((worker) => ({
    name: worker.name,
    kind: 'worker' as const,
    module: worker.handler,
    permissions: worker.permissions,
  })),
];
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? new Set((args[onlyIndex + 1] ?? '').split(',')) : undefined;
const targets = only ? allTargets.filter((target) => only.has(target.name)) : allTargets;

interface Measured extends Target {
  bytes: number;
  budget: number;
  /** Largest inputs by bytes in the output. */
  top: { path: string; bytes: number }[];
  importMs?: number;
  baselineImportMs?: number;
}

function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match ? match[1]! : 'service code';
}

async function measure(target: Target): Promise<Measured> {
  const outfile = join(OUT_DIR, target.name, 'index.mjs');
  const result = await build(lambdaBuildOptions({ ...target, outfile, bundleSdk, allClients }));
  const output = Object.entries(result.metafile!.outputs).find(([file]) => file.endsWith('index.mjs'))![1];
  const byPackage = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs))
    byPackage.set(packageOf(path), (byPackage.get(packageOf(path)) ?? 0) + input.bytesInOutput);
  const top = [...byPackage.entries()]
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 3);
  return {
    ...target,
    bytes: statSync(outfile).size,
    budget: BUNDLE_BUDGET_OVERRIDES[target.name] ?? BUNDLE_BUDGET_BYTES[target.kind],
    top,
  };
}

/** Wall time of `await import(bundle)` in a fresh Node process: the module-load part of a cold start. */
function importMs(file: string): number {
  const url = pathToFileURL(file).href;
  const script = `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'ERROR' },
    encoding: 'utf8',
  });
  return Number(out);
}

const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

/** Median import times of the bundle (and of its baseline, if there is one), the two measured turn by turn. */
function measureImport(m: Measured, runs: number): void {
  const file = join(OUT_DIR, m.name, 'index.mjs');
  const baseline = baselineDir ? join(baselineDir, m.name, 'index.mjs') : undefined;
  const hasBaseline = baseline !== undefined && existsSync(baseline);
  const times: number[] = [];
  const baselineTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    if (hasBaseline) baselineTimes.push(importMs(baseline));
    times.push(importMs(file));
  }
  m.importMs = median(times);
  if (hasBaseline) m.baselineImportMs = median(baselineTimes);
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

rmSync(OUT_DIR, { recursive: true, force: true });
mkdirSync(OUT_DIR, { recursive: true });
const started = performance.now();
const measured = await Promise.all(targets.map(measure));
if (coldStartRuns > 0) for (const m of measured) measureImport(m, coldStartRuns);
measured.sort((a, b) => b.bytes - a.bytes);

const over = measured.filter((m) => m.bytes > m.budget);
const withBaseline = baselineDir !== undefined && coldStartRuns > 0;
const baselineMs = (m: Measured) => m.baselineImportMs?.toFixed(1) ?? 'n/a';
if (markdown) {
  const cold =
    coldStartRuns > 0
      ? `${withBaseline ? ' baseline import ms |' : ''} import ms (median of ${coldStartRuns}) |`
      : '';
  const coldColumns = coldStartRuns > 0 ? (withBaseline ? '---:|---:|' : '---:|') : '';
  console.log(`| function | kind | minified | budget |${cold} largest inputs |`);
  console.log(`|---|---|---:|---:|${coldColumns}---|`);
  for (const m of measured) {
    const inputs = m.top.map((t) => `${t.path} ${kb(t.bytes)}`).join(', ');
    const base = withBaseline ? ` ${baselineMs(m)} |` : '';
    const ms = m.importMs === undefined ? '' : `${base} ${m.importMs.toFixed(1)} |`;
    console.log(`| ${m.name} | ${m.kind} | ${kb(m.bytes)} | ${kb(m.budget)} |${ms} ${inputs} |`);
  }
} else {
  for (const m of measured) {
    const base = withBaseline ? `  baseline ${baselineMs(m).padStart(6)} ms` : '';
    const ms = m.importMs === undefined ? '' : `  import ${m.importMs.toFixed(1).padStart(6)} ms${base}`;
    const flag = m.bytes > m.budget ? '  OVER BUDGET' : '';
    console.log(
      `${m.name.padEnd(28)} ${m.kind.padEnd(6)} ${kb(m.bytes).padStart(10)} / ${kb(m.budget)}${ms}${flag}`,
    );
  }
}
const cold =
  coldStartRuns > 0 ? `, import times median of ${coldStartRuns} fresh processes (not asserted)` : '';
console.log(
  `${measured.length} bundles${bundleSdk ? ' (AWS SDK bundled)' : ''} in ${((performance.now() - started) / 1000).toFixed(1)} s${cold}; ${over.length} over budget`,
);
if (over.length > 0) process.exitCode = 1;
