/**
 * Recounting a firm's counters from its items (issue 14): what `ledgerctl backfill counters` and
 * `ledgerctl seed` run, and what the tests compare the live counters with. Idempotent: it sets absolute values
 * (never adds), and writes them only if no counted write committed while it read (the shards' revs), else
 * it reads again. Also rewrites the job markers (model sightings, flagged jobs), which are idempotent puts.
 */
import {
  certificateContributions,
  incidentContributions,
  jobContributions,
  shardOf,
  sumCounters,
  type CounterFamily,
  type Counters,
} from '../domain/counters/contributions.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { certificateRecordIds } from '../store/certificate-store.js';
import { readCounterFamily, replaceCounterFamily } from '../store/counter-store.js';
import { listIncidentFacts } from '../store/incident-store.js';
import { jobMarkerItems } from '../store/job-marker-store.js';
import { batchWrite } from '../store/reporting-store.js';
import { jobPages } from '../store/review-job-store.js';

const RECOUNT_ATTEMPTS = 5;

export interface RecountResult {
  firmId: string;
  jobs: number;
  certificates: number;
  incidents: number;
  markers: number;
  recountedAt: string;
}

/** Adds an entity's contributions to its shard's counters. */
function addTo(byShard: Map<number, Counters>, family: CounterFamily, id: string, counters: Counters) {
  const shard = shardOf(family, id);
  byShard.set(shard, sumCounters([byShard.get(shard) ?? new Map(), counters]));
}

/** Recounts one family: read revs, count, replace if no counted write committed meanwhile; else again. */
async function recountFamily(
  deps: Deps,
  firmId: string,
  family: CounterFamily,
  count: () => Promise<{ byShard: Map<number, Counters>; entities: number }>,
  recountedAt: string,
): Promise<number> {
  for (let attempt = 1; attempt <= RECOUNT_ATTEMPTS; attempt++) {
    const { revs } = await readCounterFamily(deps, firmId, family);
    const { byShard, entities } = await count();
    const outcome = await replaceCounterFamily(deps, firmId, family, byShard, revs, recountedAt);
    if (outcome.status === 'committed') return entities;
  }
  throw new Error(`Recounting ${family} of firm ${firmId} kept meeting concurrent writes; run it again`);
}

/**
 * Recomputes every counter of the firm (jobs, certificates, incidents) and the job markers from the items.
 * Safe to run at any time, any number of times, also while the firm writes.
 */
export async function recountFirmCounters(deps: Deps, firmId: string): Promise<RecountResult> {
  const recountedAt = isoNow(deps.clock);
  let markers = 0;
  const jobs = await recountFamily(
    deps,
    firmId,
    'jobs',
    async () => {
      const byShard = new Map<number, Counters>();
      let entities = 0;
      for await (const page of jobPages(deps, firmId)) {
        const puts = page.flatMap((job) => jobMarkerItems(job).map((Item) => ({ PutRequest: { Item } })));
        if (puts.length > 0) await batchWrite(deps, deps.tables.main, puts);
        markers += puts.length;
        for (const job of page) addTo(byShard, 'jobs', job.id, jobContributions(job));
        entities += page.length;
      }
      return { byShard, entities };
    },
    recountedAt,
  );
  const certificates = await recountFamily(
    deps,
    firmId,
    'certificates',
    async () => {
      const byShard = new Map<number, Counters>();
      const ids = await certificateRecordIds(deps, firmId);
      for (const id of ids) addTo(byShard, 'certificates', id, certificateContributions());
      return { byShard, entities: ids.length };
    },
    recountedAt,
  );
  const incidents = await recountFamily(
    deps,
    firmId,
    'incidents',
    async () => {
      const byShard = new Map<number, Counters>();
      const facts = await listIncidentFacts(deps, firmId);
      for (const incident of facts) addTo(byShard, 'incidents', incident.id, incidentContributions(incident));
      return { byShard, entities: facts.length };
    },
    recountedAt,
  );
  return { firmId, jobs, certificates, incidents, markers, recountedAt };
}
