import type { Dependency } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { dependencyBudgets } from '../runtime/config.js';
import { logger } from '../runtime/logger.js';
import { send } from '../store/dynamo.js';
import { isTransientFault } from '../adapters/transient-faults.js';
import { DependencyUnavailableError } from '../errors.js';

export type DependencyHealth = 'ok' | 'failing';

export interface HealthReport {
  status: 'ok' | 'degraded';
  dependencies: Record<Dependency, DependencyHealth>;
}

/** An item no one writes: reading it asks the table to answer, nothing more. */
const PROBE_KEY = { pk: 'HEALTH', sk: 'PROBE' };
/** An object key no one writes, in the immutable bucket: its absence is the answer. */
const PROBE_OBJECT = 'health/probe';

/**
 * The default probe of each dependency: one cheap call it must answer (a read of a key that does not exist, the
 * signer's public key). A composition root may give its own (Deps.probes).
 */
function defaultProbes(deps: Deps): Record<Dependency, () => Promise<unknown>> {
  return {
    database: () => send(deps.db, 'Get', { TableName: deps.tables.main, Key: PROBE_KEY }),
    signer: () => deps.signer.publicKeySpki(),
    objects: () => deps.objects.head('immutable', PROBE_OBJECT),
    // A send would deliver a message: without a probe of the root's (the local queue's fault switch), the queue is
    // not asked here; in AWS its alarm watches the sends (lib/monitoring.ts).
    queue: async () => undefined,
  };
}

/**
 * Whether a probe's outcome shows the dependency there: it answered, even with a refusal (a 4xx such as AccessDenied
 * or a missing key is an answer); it is failing when it timed out, lost its connection or answered a transient fault.
 */
function answered(error: unknown): boolean {
  if (error instanceof DependencyUnavailableError || isTransientFault(error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' && status < 500;
}

async function probe(dependency: Dependency, call: () => Promise<unknown>, budgetMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), budgetMs)));
  try {
    const outcome = await Promise.race([call().then(() => 'ok' as const), late]);
    if (outcome === 'ok') return 'ok';
    logger.warn('Health check of a dependency timed out', { dependency, budgetMs });
    return 'failing';
  } catch (error) {
    if (answered(error)) return 'ok';
    logger.warn('Health check of a dependency failed', { dependency, error: error as Error });
    return 'failing';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /health (issue 32): every dependency asked at once, each within HEALTH_CHECK_TIMEOUT_MS (1 s), so the answer
 * comes within about that long whatever stalls. Degraded when any fails; nothing is remembered between requests, so
 * the report recovers as soon as the dependency does.
 */
export async function checkHealth(deps: Deps): Promise<HealthReport> {
  const budgetMs = dependencyBudgets().healthCheckTimeoutMs;
  const probes = { ...defaultProbes(deps), ...deps.probes };
  const names = Object.keys(probes) as Dependency[];
  const results = await Promise.all(names.map((name) => probe(name, probes[name], budgetMs)));
  const dependencies = Object.fromEntries(
    names.map((name, i) => [name, results[i]!]),
  ) as HealthReport['dependencies'];
  return {
    status: results.every((result) => result === 'ok') ? 'ok' : 'degraded',
    dependencies,
  };
}
