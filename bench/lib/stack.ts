/**
 * The embedded stack for benches: the same starter the integration tests use (test/support/local-stack.ts),
 * started exactly as a user starts it, with a fresh DATA_DIR and a free port; firms are onboarded through
 * `ledgerctl firm create`, as an operator would.
 */
import { readFileSync } from 'node:fs';
import type { LocalStackInfo } from '../../shared/runtime/local-deps.js';
import { ledgerctl, startStack as start, stopStack } from '../../test/support/local-stack.js';

export interface EmbeddedStack extends LocalStackInfo {
  dataDir: string;
  /** Pid of the stack's DynamoDB Local (Java), for diagnostics. */
  dynamoPid: number | undefined;
  /** What the stack printed (stdout and stderr), for diagnostics. */
  logs(): string;
  /** Stops the stack (and its DynamoDB Local) and removes DATA_DIR (unless it was given). */
  stop(): Promise<void>;
}

export interface OnboardedFirm {
  firm: { id: string; name: string; frnNumber: string; plan: string; createdAt: string };
  admin: { id: string; name: string; email: string; fcaRef: string | null; role: string };
  /** The firm's first API key (X-Service-Key), shown once. */
  apiKey: string;
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a stack; with `dataDir` (an existing stack's data, e.g. seeded by an earlier run) it is reused and
 * kept at stop, otherwise a fresh DATA_DIR is made and removed at stop.
 */
export async function startStack(
  options: { env?: Record<string, string>; dataDir?: string } = {},
): Promise<EmbeddedStack> {
  const stack = await start({
    env: { LOG_LEVEL: 'ERROR', ...options.env },
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  const pid = Number(readFileSync(`${stack.dataDir}/dynamodb.pid`, 'utf8'));
  return {
    baseUrl: stack.baseUrl,
    dynamoEndpoint: stack.dynamoEndpoint,
    pid: stack.pid,
    dataDir: stack.dataDir,
    dynamoPid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
    logs: stack.output,
    stop: async () => {
      await stopStack(stack, { removeData: !options.dataDir });
    },
  };
}

/** Onboards a firm with `ledgerctl firm create` against the stack's DATA_DIR. */
export async function createFirm(stack: EmbeddedStack, options: { name: string }): Promise<OnboardedFirm> {
  const tag = Math.random().toString(36).slice(2, 8);
  const result = await ledgerctl(stack.dataDir, [
    'firm',
    'create',
    '--name',
    options.name,
    '--frn',
    '123456',
    '--plan',
    'BOTH',
    '--admin-name',
    'Bench Admin',
    '--admin-email',
    `admin-${tag}@bench.test`,
  ]);
  if (result.code !== 0) throw new Error(`ledgerctl firm create failed: ${result.stderr}`);
  return result.json as OnboardedFirm;
}

/** What `ledgerctl seed --create` reports of the firm it made. */
export interface SeededFirmSummary {
  firmId: string;
  created: { apiKey: string };
  itemsPerSecond: number;
}

/** A new firm seeded with `records` records (no jobs; `incidents` of them incidents, 0 by default) by `ledgerctl seed --create`. */
export async function seedFirm(
  stack: EmbeddedStack,
  options: { name: string; records: number; incidents?: number },
): Promise<SeededFirmSummary> {
  const result = await ledgerctl(stack.dataDir, [
    'seed',
    '--create',
    '--name',
    options.name,
    '--records',
    String(options.records),
    '--jobs',
    '0',
    '--incidents',
    String(options.incidents ?? 0),
  ]);
  if (result.code !== 0) throw new Error(`ledgerctl seed failed: ${result.stderr}`);
  return result.json as SeededFirmSummary;
}
