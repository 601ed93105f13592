/**
 * `ledgerctl backfill counters [--firm F] [--after F]` (issue 14, part 5): brings data written before the
 * counters existed (or outside the services) up to date, per firm, idempotently:
 * 1. the firm counters and job markers: recountFirmCounters (absolute values; safe to rerun, safe while the
 *    firm writes);
 * 2. the reporting aggregates of every completed job: commitAggregation per job, whose fact item is the
 *    idempotency marker (a job already aggregated, by the worker or an earlier run, is left as it is);
 * 3. the firm's entry in the backup reconciliation registry (kept if present).
 * Firms are processed in id order; `after` resumes a run that stopped after that firm.
 */
import { factOfJob } from '../domain/governance/aggregates.js';
import type { Deps } from '../runtime/deps.js';
import { registerFirm } from '../store/backup-store.js';
import { scanFirmIds } from '../store/firm-store.js';
import { commitAggregation } from '../store/reporting-store.js';
import { jobPages } from '../store/review-job-store.js';
import { recountFirmCounters, type RecountResult } from './firm-counters.js';

const AGGREGATION_ATTEMPTS = 5;

export interface FirmBackfill {
  firmId: string;
  counters: RecountResult;
  /** Completed jobs added to the reporting aggregates by this run. */
  aggregated: number;
  /** Completed jobs that were already in the aggregates. */
  alreadyAggregated: number;
}

/** Adds one completed job to the aggregates unless it is there; retries a transaction that met another. */
async function aggregateOnce(deps: Deps, firmId: string, fact: NonNullable<ReturnType<typeof factOfJob>>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await commitAggregation(deps, firmId, fact);
    } catch (error) {
      if (attempt >= AGGREGATION_ATTEMPTS) throw error;
    }
  }
}

export async function backfillFirm(deps: Deps, firmId: string): Promise<FirmBackfill> {
  const counters = await recountFirmCounters(deps, firmId);
  let aggregated = 0;
  let alreadyAggregated = 0;
  for await (const page of jobPages(deps, firmId)) {
    for (const job of page) {
      const fact = factOfJob(job);
      if (!fact) continue;
      if (await aggregateOnce(deps, firmId, fact)) aggregated += 1;
      else alreadyAggregated += 1;
    }
  }
  await registerFirm(deps, firmId);
  return { firmId, counters, aggregated, alreadyAggregated };
}

/** The firms to backfill: the one given, or every firm (sorted by id) after `after`. */
export async function backfillCounters(
  deps: Deps,
  options: { firmId?: string | undefined; after?: string | undefined },
): Promise<{ firms: FirmBackfill[]; lastFirmId: string | null }> {
  const ids = options.firmId
    ? [options.firmId]
    : (await scanFirmIds(deps)).filter((id) => options.after === undefined || id > options.after!);
  const firms: FirmBackfill[] = [];
  for (const firmId of ids) firms.push(await backfillFirm(deps, firmId));
  return { firms, lastFirmId: firms.at(-1)?.firmId ?? null };
}
