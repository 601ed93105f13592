import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * The CDK app describes the service; it must not import the service's runtime code (which would run, or at
 * least load, data access, the ledger writer or AWS clients at synth time, and tie the stack to their
 * internals). It may import the tables that drive both (routes, workers, permissions) and pure code.
 */
const RUNTIME_CODE = [
  'shared/runtime/',
  'shared/services/',
  'shared/store/',
  'shared/ledger-writer/',
  'shared/adapters/',
  'shared/http/',
  'shared/workers/handler.ts',
  'functions/',
];

/**
 * Modules in those folders the app still reaches, each for a constant it shares with the runtime. Each entry
 * is a move waiting to be made (to a contract module outside the runtime folders); remove it when it is made.
 */
const SHARED_CONSTANTS: Record<string, string> = {
  'shared/runtime/config.ts': 'ENV and QUEUE_URL_ENV: the variables the stack sets and the functions read',
  'shared/runtime/logger.ts':
    'VERIFICATION_FAILED_LOG: the log message an alarm filters on (lib/monitoring.ts)',
  'shared/store/tables.ts': 'TABLES: the table descriptions the stack and the local stack create',
  'shared/store/keys.ts':
    "SK_PREFIX.record: the record rows' prefix the tamper watch's stream filter matches",
};

const root = fileURLToPath(new URL('../../..', import.meta.url));

async function modulesOfCdkApp(): Promise<string[]> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['bin/app.ts'],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  return Object.keys(result.metafile.inputs);
}

describe('the CDK app (bin/app.ts)', () => {
  let modules: string[];
  beforeAll(async () => {
    modules = await modulesOfCdkApp();
  });

  it('reads the route and worker tables', () => {
    expect(modules).toEqual(
      expect.arrayContaining([
        'lib/permissions.ts',
        'shared/workers/table.ts',
        'shared/workers/record-subscribers.ts',
        'shared/routes.ts',
      ]),
    );
  });

  it('imports no runtime code: no service, store, ledger writer, adapter, worker wrapper or handler', () => {
    const runtime = modules.filter((path) => RUNTIME_CODE.some((folder) => path.startsWith(folder)));
    expect(runtime.filter((path) => !(path in SHARED_CONSTANTS))).toEqual([]);
  });

  it('still reaches every listed exception (a move that was made leaves the list)', () => {
    expect(Object.keys(SHARED_CONSTANTS).filter((path) => !modules.includes(path))).toEqual([]);
  });

  it('takes the record subscribers from the worker table, not from the ledger writer', () => {
    expect(modules.some((path) => path.startsWith('shared/ledger-writer/'))).toBe(false);
    // Of the record format it reads only pure modules: the event types, and the evidence bundle's bounds (route
    // schemas).
    expect(modules.filter((path) => path.startsWith('shared/ledger/')).sort()).toEqual(
      ['event-types.ts', 'evidence-bundle.ts'].map((f) => `shared/ledger/${f}`).sort(),
    );
  });
});
