import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DynamoCounts } from '../../shared/adapters/local/dynamo-meter.js';
import type { SignCounts } from '../../shared/adapters/local/signer-quota.js';
import type { LocalStackInfo } from '../../shared/runtime/local-deps.js';

export const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

export interface RunningStack extends LocalStackInfo {
  dataDir: string;
  child: ChildProcess;
  output(): string;
}

/**
 * Starts the embedded stack exactly as `npm start` does, on a free port, and waits for its ready line.
 * `instances` runs it like Lambda (LOCAL_INSTANCES isolated instances, one invocation each at a time).
 */
export async function startStack(
  options: { dataDir?: string; env?: Record<string, string>; instances?: number } = {},
): Promise<RunningStack> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'gls-stack-'));
  const instances = options.instances === undefined ? {} : { LOCAL_INSTANCES: String(options.instances) };
  const child = spawn(TSX, ['bin/local.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'ERROR', ...instances, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((ready, fail) => {
    const timer = setTimeout(() => fail(new Error(`Stack did not start in 90 s:\n${output}`)), 90_000);
    const onData = () => {
      if (/listening on http:\/\/localhost:\d+/.test(output)) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        ready();
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`Stack exited with ${code}:\n${output}`));
    });
  });
  const info = JSON.parse(readFileSync(join(dataDir, 'local-stack.json'), 'utf8')) as LocalStackInfo;
  return { ...info, dataDir, child, output: () => output };
}

/** What GET /__local/metrics answers, as far as tests and benches read it. */
export interface LocalMetrics extends SignCounts, Partial<DynamoCounts> {
  /** Worker invocations so far, by worker name (shared/workers/table.ts). */
  workerInvocations: Record<string, number>;
}

/**
 * The stack's counters across all its instances (GET /__local/metrics): its Sign counters, and its DynamoDB
 * meter's when it runs with LOCAL_DYNAMO_METRICS=true.
 */
export async function localMetrics(stack: { baseUrl: string }): Promise<LocalMetrics> {
  const response = await fetch(`${stack.baseUrl}/__local/metrics`);
  if (response.status !== 200) throw new Error(`GET /__local/metrics answered ${response.status}`);
  return (await response.json()) as LocalMetrics;
}

/**
 * SIGTERM, as Ctrl-C would; resolves with the exit code once the stack (and its Java child) is down. A stack
 * that has not stopped within 20 s is killed, with the DynamoDB Local it recorded.
 */
export async function stopStack(
  stack: RunningStack,
  options: { removeData?: boolean } = {},
): Promise<number | null> {
  const exited = new Promise<number | null>((done) => {
    if (stack.child.exitCode !== null) done(stack.child.exitCode);
    else stack.child.once('exit', (code) => done(code));
  });
  const pidFile = join(stack.dataDir, 'dynamodb.pid');
  const javaPid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8')) : 0;
  stack.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    stack.child.kill('SIGKILL');
    if (javaPid > 0) process.kill(javaPid, 'SIGKILL');
  }, 20_000);
  const code = await exited;
  clearTimeout(timer);
  if (options.removeData) rmSync(stack.dataDir, { recursive: true, force: true });
  return code;
}

/** Runs `ledgerctl` against a stack's DATA_DIR and parses its one JSON line. */
export async function ledgerctl(
  dataDir: string,
  args: string[],
): Promise<{ code: number | null; json: unknown; stderr: string; stdout: string }> {
  const child = spawn(TSX, ['bin/ledgerctl.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.once('exit', done));
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = null;
  }
  return { code, json, stderr, stdout };
}
