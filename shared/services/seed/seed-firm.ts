import {
  certificateMetadata,
  certificatePdfKey,
  verificationUrl,
} from '../../domain/certificates/content.js';
import type { Role } from '../../domain/auth/principal.js';
import { factOfJob } from '../../domain/governance/aggregates.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import { isRotationAppend, planSigning } from '../../ledger-writer/signing-plan.js';
import { computeChainHash, computeRecordHash, immutableBytes } from '../../ledger/hashing.js';
import type { LedgerRecord, RecordPayload } from '../../ledger/record.js';
import { sealRecord } from '../../ledger/seal.js';
import type { Deps } from '../../runtime/deps.js';
import { BulkWriter } from '../../store/bulk-write.js';
import type { CertificateItem } from '../../store/certificate-store.js';
import { writeConditionally } from '../../store/conditional-write.js';
import { getFirm } from '../../store/firm-store.js';
import { immutableRecordKey } from '../../store/immutable-layout.js';
import { incidentPutItem } from '../../store/incident-store.js';
import { certificateListAttributes } from '../../store/list-attributes.js';
import { keys } from '../../store/keys.js';
import { readHead } from '../../store/ledger-store.js';
import { seedAggregateItems } from '../../store/reporting-store.js';
import { registerFirm } from '../../store/backup-store.js';
import { recountFirmCounters } from '../firm-counters.js';
import { jobRow } from '../../store/review-job-store.js';
import { headItem, recordItem } from '../../store/ledger-writes.js';
import { getUserByEmail, listUsers, putUserItems, type UserItem } from '../../store/user-store.js';
import { MIN_OTHER_RECORDS, planHistory, RECORDS_PER_JOB } from './history.js';

/*
 * `ledgerctl seed` (issue 14, part 4): writes a firm's history at bulk speed straight into the tables and the
 * immutable store, no HTTP and no sequencer. What it writes is what the live paths would have left: records
 * sealed by the real code (shared/ledger/seal.ts: JCS hash, chain hash, signature by the key whose window holds
 * each timestamp), stored by the store's own row builder, with their immutable copies; the head; completed
 * jobs as seedCompletedJobs writes them, with their reporting facts and buckets (seedAggregateItems);
 * certificates; incidents; the reviewers; then the firm counters and job markers (recountFirmCounters, as
 * `ledgerctl backfill counters` does) and the firm's backup-registry entry.
 *
 * Order of the writes: every hash is computed first (cheap, sequential), then the head moves to the last seeded
 * record in one conditional write (so a concurrent append fails fast, or lands after the seeded range, never
 * in it), then the records are signed in parallel chunk by chunk and written with BatchWriteItem (25 items,
 * several calls in flight) while the previous chunk's immutable copies are written. Until it ends, the chain
 * has a gap below its head: seed is for empty or quiet firms (demos, benches), not for a firm in use.
 */

const DAY = 86_400_000;
/** Records sealed, written and copied per step of the pipeline. */
const CHUNK = 500;
/** Immutable copies written at once. */
const COPY_WIDTH = 16;

export interface SeedFirmOptions {
  firmId: string;
  records: number;
  jobs: number;
  days: number;
  /** Incidents to log (default: 2 % of the records beyond the jobs'). */
  incidents?: number;
  /** Where certificates' verification links point (the stack's public base URL). */
  publicBaseUrl: string;
  /** Batches in flight (default 8). */
  width?: number;
  /** Seed of the pseudo-random stream (default: the record count), so runs are comparable. */
  seed?: number;
  now?: number;
}

export interface SeedSummary {
  firmId: string;
  records: number;
  firstSequence: number;
  lastSequence: number;
  from: string;
  to: string;
  jobs: number;
  certificates: number;
  incidents: number;
  reviewersCreated: number;
  /** DynamoDB items written (puts and bucket updates), by table, and the immutable objects. */
  itemsWritten: { ledger: number; main: number; total: number };
  objectsWritten: number;
  batchCalls: number;
  unprocessedRetries: number;
  seconds: number;
  itemsPerSecond: number;
  /** Where the time went (ms per phase), for tuning. */
  phasesMs: Record<string, number>;
}

/** The seeded reviewers: `seed-reviewer-<n>@seed.invalid` (5 REVIEWER, 2 LEAD_REVIEWER), reused if present. */
const SEED_REVIEWERS: { name: string; role: Role }[] = [
  ...['Ava Patel', 'Ben Okafor', 'Chloe Evans', 'Dan Murphy', 'Ella Novak'].map((name) => ({
    name,
    role: 'REVIEWER' as const,
  })),
  ...['Farah Khan', 'George Lewis'].map((name) => ({ name, role: 'LEAD_REVIEWER' as const })),
];

export async function seedFirm(deps: Deps, options: SeedFirmOptions): Promise<SeedSummary> {
  const started = performance.now();
  const phases: Record<string, number> = {};
  let mark = started;
  const phase = (name: string) => {
    const at = performance.now();
    phases[name] = Math.round(at - mark);
    mark = at;
  };
  const { firmId } = options;
  if (!Number.isInteger(options.records) || options.records < 1)
    throw new ValidationError('records must be a positive integer');
  if (!Number.isInteger(options.jobs) || options.jobs < 0)
    throw new ValidationError('jobs must be a non-negative integer');
  if (!(options.days > 0)) throw new ValidationError('days must be positive');
  if (options.incidents !== undefined && !(Number.isInteger(options.incidents) && options.incidents >= 0))
    throw new ValidationError('incidents must be a non-negative integer');
  const least = options.jobs * RECORDS_PER_JOB + (options.jobs > 0 ? MIN_OTHER_RECORDS : 0);
  if (options.records < least)
    throw new ValidationError(
      `--records must be at least ${RECORDS_PER_JOB} per job plus ${MIN_OTHER_RECORDS} (${least} for ${options.jobs} jobs)`,
    );
  const firm = await getFirm(deps, firmId);
  if (!firm) throw new NotFoundError(`No firm ${firmId}`);
  const head = await readHead(deps, firmId);
  const now = options.now ?? Date.now();
  // Never before the firm's last record: timestamps do not go backwards along the chain.
  const from = Math.max(now - options.days * DAY, head.timestamp ? Date.parse(head.timestamp) + 1 : 0);
  if (from >= now) throw new ConflictError('The firm has a record from the future; nothing can follow it');

  const writer = new BulkWriter(deps, { width: options.width ?? 8 });
  const users = await seedUsers(deps, firmId, now, writer);
  phase('users');
  const plan = planned(() =>
    planHistory({
      firmId,
      records: options.records,
      jobs: options.jobs,
      ...(options.incidents === undefined ? {} : { incidents: options.incidents }),
      from,
      to: now,
      reviewers: users.reviewers,
      admin: users.admin,
      random: prng(options.seed ?? options.records),
    }),
  );

  // One key signs the seeded range (the key whose window holds its timestamps), after a SIGNING_KEY_ROTATED
  // when the firm's last record was signed by another key: the sequencer's own rule (planSigning).
  const unsequenced = plan.payloads as RecordPayload[];
  const signing = await planSigning(deps, head, unsequenced);
  if (signing.keep < unsequenced.length)
    throw new ConflictError(
      'The seeded period spans a signing-key change; seed fewer --days (after the current key took over)',
    );
  const payloads: RecordPayload[] = [];
  if (signing.rotation && isRotationAppend(signing.rotation)) {
    const r = signing.rotation;
    payloads.push({
      id: r.recordId,
      firmId,
      sequenceNumber: 0,
      eventType: r.eventType,
      actorId: r.actor.id,
      actorName: r.actor.name,
      actorFcaRef: r.actor.fcaRef,
      documentHash: r.documentHash,
      documentMetadata: r.documentMetadata,
      timestamp: unsequenced[0]!.timestamp,
      reviewJobId: null,
    });
  }
  const offset = payloads.length;
  payloads.push(...unsequenced);
  const previous: (string | null)[] = [];
  let chainHash = head.chainHash;
  payloads.forEach((payload, i) => {
    payload.sequenceNumber = head.sequenceNumber + 1 + i;
    previous.push(chainHash);
    chainHash = computeChainHash(chainHash, computeRecordHash(payload));
  });
  const last = payloads[payloads.length - 1]!;
  phase('plan+hashes');
  const reserved = await writeConditionally(deps, [
    headItem(
      deps,
      { firmId, sequenceNumber: last.sequenceNumber, chainHash: chainHash!, timestamp: last.timestamp },
      head,
    ),
  ]);
  if (reserved.status !== 'committed')
    throw new ConflictError('The firm appended records while seed started; run it again on a quiet firm');

  // Records: signed in parallel (the signer's own in-flight limit applies), written and copied chunk by chunk.
  const wanted = new Set(plan.certificates.map((c) => c.certified + offset));
  const certified = new Map<number, LedgerRecord>();
  let copying: Promise<void> = Promise.resolve();
  let objectsWritten = 0;
  for (let start = 0; start < payloads.length; start += CHUNK) {
    const chunk = payloads.slice(start, start + CHUNK);
    const sealed = await Promise.all(
      chunk.map((payload, i) =>
        sealRecord(payload, previous[start + i] ?? null, signing.key.signer, signing.key.publicKey),
      ),
    );
    sealed.forEach((record, i) => {
      if (wanted.has(start + i)) certified.set(start + i, record);
    });
    await copying;
    copying = mapLimit(sealed, COPY_WIDTH, async (record) => {
      await deps.objects.put(
        'immutable',
        immutableRecordKey(firmId, record.sequenceNumber, record.id),
        immutableBytes(record),
        'application/json',
      );
      objectsWritten++;
    });
    await writer.put(
      deps.tables.ledger,
      sealed.map((record) => recordItem(deps, record).Put!.Item!),
    );
  }
  await copying;
  await writer.flush();
  phase('records');

  // Certificates, incidents, then the jobs with their facts and buckets.
  const jobOfCertificate = new Map(plan.jobs.map((job) => [job.certificateId, job]));
  const certificates: CertificateItem[] = plan.certificates.map((c) => {
    const record = certified.get(c.certified + offset)!;
    const job = jobOfCertificate.get(c.id) ?? null;
    return {
      id: c.id,
      ledgerRecordId: record.id,
      firmId,
      firmName: firm.name,
      firmFrnNumber: firm.frnNumber,
      issuedAt: c.issuedAt,
      verificationUrl: verificationUrl(options.publicBaseUrl, c.id),
      pdfStorageKey: certificatePdfKey(firmId, c.id),
      metadata: certificateMetadata(record, job),
      sequenceNumber: record.sequenceNumber,
      recordHash: record.recordHash,
      chainHash: record.chainHash,
    };
  });
  await writer.put(
    deps.tables.main,
    certificates.flatMap((c) => [
      { ...keys.certificate(firmId, c.ledgerRecordId), ...c, ...certificateListAttributes(c) },
      { ...keys.certificateById(c.id), firmId, ledgerRecordId: c.ledgerRecordId },
      {
        ...keys.certificateReservation(firmId, c.ledgerRecordId),
        recordId: c.ledgerRecordId,
        certificateId: c.id,
        reservedAt: c.issuedAt,
      },
    ]),
  );
  await writer.put(
    deps.tables.main,
    plan.incidents.map((incident) => incidentPutItem(deps, incident).Put!.Item!),
  );
  // Jobs as seedCompletedJobs writes them (jobRow: completed, so out of the SLA sweep's index), facts, buckets.
  await writer.put(
    deps.tables.main,
    plan.jobs.map((job) => jobRow(job)),
  );
  const facts = plan.jobs.map((job) => factOfJob(job)).filter((fact) => fact !== null);
  await writer.put(deps.tables.main, await seedAggregateItems(deps, firmId, facts));
  await writer.flush();
  phase('certificates+incidents+jobs');
  // The firm counters (stats, models, vulnerability, incident stats) and job markers, from the items just
  // written, as `ledgerctl backfill counters` does; and the firm's entry in the backup reconciliation registry.
  const recount = await recountFirmCounters(deps, firmId);
  await registerFirm(deps, firmId);
  phase('counters');

  const ledgerItems = writer.written[deps.tables.ledger] ?? 0;
  const mainItems = (writer.written[deps.tables.main] ?? 0) + recount.markers;
  const total = ledgerItems + mainItems + 1; // + the head
  const seconds = (performance.now() - started) / 1000;
  return {
    firmId,
    records: payloads.length,
    firstSequence: payloads[0]!.sequenceNumber,
    lastSequence: last.sequenceNumber,
    from: payloads[0]!.timestamp,
    to: last.timestamp,
    jobs: plan.jobs.length,
    certificates: certificates.length,
    incidents: plan.incidents.length,
    reviewersCreated: users.created,
    itemsWritten: { ledger: ledgerItems + 1, main: mainItems, total },
    objectsWritten,
    batchCalls: writer.calls,
    unprocessedRetries: writer.retries,
    seconds: Math.round(seconds * 100) / 100,
    itemsPerSecond: Math.round(total / seconds),
    phasesMs: phases,
  };
}

/** The firm's first FIRM_ADMIN (submitter of the seeded jobs) and the seeded reviewers, created if missing. */
async function seedUsers(
  deps: Deps,
  firmId: string,
  now: number,
  writer: BulkWriter,
): Promise<{ admin: UserItem; reviewers: UserItem[]; created: number }> {
  const admin = (await listUsers(deps, firmId)).find((u) => u.role === 'FIRM_ADMIN' && !u.deactivatedAt);
  if (!admin) throw new ConflictError(`Firm ${firmId} has no active FIRM_ADMIN to submit the seeded jobs`);
  const at = new Date(now).toISOString();
  const reviewers: UserItem[] = [];
  const missing: UserItem[] = [];
  for (const [i, { name, role }] of SEED_REVIEWERS.entries()) {
    const email = `seed-reviewer-${i + 1}@seed.invalid`;
    const existing = await getUserByEmail(deps, firmId, email);
    if (existing) {
      reviewers.push(existing);
      continue;
    }
    const user: UserItem = {
      id: newId('user'),
      firmId,
      name,
      email,
      fcaRef: `SEED${String(i + 1).padStart(4, '0')}`,
      qualifications: [],
      role,
      isAvailable: true,
      specialistVulnerability: role === 'LEAD_REVIEWER',
      invitedAt: at,
      activatedAt: at,
      deactivatedAt: null,
      activeJobId: null,
    };
    reviewers.push(user);
    missing.push(user);
  }
  await writer.put(
    deps.tables.main,
    missing.flatMap((user) => putUserItems(deps, user).map((item) => item.Put!.Item!)),
  );
  return { admin, reviewers, created: missing.length };
}

/** Runs `task` over `items`, `width` at a time. */
async function mapLimit<T>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
}

/** A deterministic pseudo-random stream (LCG), so seeded histories are comparable across runs. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The plan, or a ValidationError when the record count cannot hold what was asked for (before any record is written). */
function planned<T>(plan: () => T): T {
  try {
    return plan();
  } catch (error) {
    if (error instanceof RangeError) throw new ValidationError(error.message);
    throw error;
  }
}
