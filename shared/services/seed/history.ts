import {
  jobMetadata,
  slaDeadline,
  submittedMetadata,
  type JobOutcome,
  type VulnerabilityFlag,
} from '../../domain/review/jobs.js';
import { OUTCOME_EVENT, OUTCOME_STATUS } from '../../domain/review/workflow.js';
import { ID_PREFIX } from '../../ids.js';
import type { RecordPayload } from '../../ledger/record.js';
import type { IncidentItem } from '../../store/incident-store.js';
import type { StoredJob } from '../../store/review-job-store.js';
import type { UserItem } from '../../store/user-store.js';
import { addFirmEvents } from './firm-events.js';
import { actorOfUser, Timeline } from './timeline.js';

/**
 * The firm history `ledgerctl seed` writes (issue 14, part 4), as plain data: record payloads in chain order
 * (no sequence numbers, hashes or signatures yet: shared/services/seed/seed-firm.ts seals them), the completed
 * jobs, incidents and the certificates to issue. Deterministic for a given `random`; ids are ULIDs of the
 * event's own instant, so id order follows time as it does for records written live.
 *
 * Per completed job: DOCUMENT_SUBMITTED, REVIEW_STARTED, REVIEW_COMPLETED and its outcome record (4 records);
 * the remaining records are spread over the other kinds ordinary operation writes (certificates, SLA breaches,
 * escalations, incidents, impact assessments, assurance reviews, settings changes, verifications, AI
 * generations). CHAIN_REPAIRED (a restore), SIGNING_KEY_ROTATED (a key change) and LOG_WITNESS_REFUSED (a
 * witness's alarm) are never invented.
 */

export const RECORDS_PER_JOB = 4;
/** Records beyond the jobs' that every seeded kind needs at least one of. */
export const MIN_OTHER_RECORDS = 10;

export const SEED_MODELS = [
  { provider: 'openai', version: 'gpt-4o-2024-08-06' },
  { provider: 'anthropic', version: 'claude-3-5-sonnet' },
  { provider: 'internal', version: 'suitability-v2' },
] as const;
const DOC_TYPES = ['SUITABILITY_REPORT', 'PENSION_TRANSFER', 'ANNUAL_REVIEW', 'PROTECTION'];
const AGE = ['18-29', '30-44', '45-59', '60-74', '75+'];
const RISK = ['cautious', 'balanced', 'adventurous'];
const REGION = ['north', 'south', 'wales', 'scotland'];
const FLAGS: readonly VulnerabilityFlag[] = ['health', 'life_event', 'capability', 'resilience'];
const HOUR = 3_600_000;

export interface SeedInput {
  firmId: string;
  records: number;
  jobs: number;
  /** Incidents to log (default 2 % of the records beyond the jobs'); about 1.7 records each. */
  incidents?: number;
  /** The history spans [from, to] (epoch ms); every timestamp lies inside. */
  from: number;
  to: number;
  /** Who reviews (REVIEWER and LEAD_REVIEWER users), who submits and administers (a FIRM_ADMIN). */
  reviewers: readonly UserItem[];
  admin: UserItem;
  random: () => number;
}

/** A certificate to issue once the records are sealed: for the record at `certified`, told by `issued`. */
export interface PlannedCertificate {
  id: string;
  certified: number;
  issued: number;
  issuedAt: string;
}

/** How many records of each kind besides the jobs' four and the AI generations. */
export interface OtherCounts {
  certificates: number;
  breaches: number;
  escalations: number;
  incidents: number;
  assessments: number;
  assurance: number;
  settings: number;
  verifications: number;
}

export interface SeedPlan {
  payloads: Omit<RecordPayload, 'sequenceNumber'>[];
  jobs: StoredJob[];
  incidents: IncidentItem[];
  certificates: PlannedCertificate[];
}

export function planHistory(input: SeedInput): SeedPlan {
  const { firmId, random } = input;
  const other = input.records - input.jobs * RECORDS_PER_JOB;
  if (other < (input.jobs > 0 ? MIN_OTHER_RECORDS : 0))
    throw new RangeError(
      `--records must be at least ${RECORDS_PER_JOB} per job plus ${MIN_OTHER_RECORDS} (${input.jobs * RECORDS_PER_JOB + MIN_OTHER_RECORDS} for ${input.jobs} jobs)`,
    );
  const pick = <T>(values: readonly T[]) => values[Math.floor(random() * values.length)]!;
  const span = Math.max(1, input.to - input.from);
  const timeline = new Timeline(input.from, input.to);
  const { at, ulidAt } = timeline;
  const admin = actorOfUser(input.admin);
  const reviewers = input.reviewers.filter((u) => u.role === 'REVIEWER');
  const leads = input.reviewers.filter((u) => u.role === 'LEAD_REVIEWER');

  // How many records of each other kind (each at least one when there are jobs).
  const share = (fraction: number, cap = Infinity) =>
    Math.max(1, Math.min(cap, Math.floor(other * fraction)));
  const counts: OtherCounts | null =
    input.jobs > 0
      ? {
          certificates: share(0.25, input.jobs),
          breaches: share(0.05, input.jobs),
          escalations: share(0.05, input.jobs),
          incidents: input.incidents ?? share(0.02),
          assessments: SEED_MODELS.length,
          assurance: share(0.02),
          settings: 2,
          verifications: share(0.02),
        }
      : null;

  const jobs: StoredJob[] = [];
  const certificates: PlannedCertificate[] = [];
  const jobWindow = Math.max(1, span - 72 * HOUR);
  for (let j = 0; j < input.jobs; j++) {
    const flagged = random() < 0.1;
    const breach = j < (counts?.breaches ?? 0);
    const escalate =
      !breach && j >= (counts?.breaches ?? 0) && j < (counts?.breaches ?? 0) + (counts?.escalations ?? 0);
    const reviewer = flagged || escalate ? pick(leads) : pick(reviewers);
    const submittedAt = input.from + random() * jobWindow;
    const startedAt = submittedAt + random() * 6 * HOUR;
    const decidedAt = breach
      ? submittedAt + 49 * HOUR + random() * 20 * HOUR
      : startedAt + (0.2 + random() * 8) * HOUR;
    const roll = random();
    const outcome: JobOutcome =
      roll < 0.15 ? 'REJECTED' : roll < 0.35 ? 'APPROVED_WITH_MODIFICATIONS' : 'APPROVED';
    const model = random() < 0.8 ? pick(SEED_MODELS) : null;
    const iso = (t: number) => new Date(Math.round(t)).toISOString();
    const job: StoredJob = {
      id: '',
      firmId,
      documentReference: `DOC-${String(j + 1).padStart(7, '0')}`,
      documentType: pick(DOC_TYPES),
      documentUrl: '',
      documentHash: hex64(random),
      clientReference: `CLI-${Math.floor(random() * 1e6)}`,
      factFindSummary: {
        age: 25 + Math.floor(random() * 55),
        objective: pick(['growth', 'income', 'protection']),
      },
      status: OUTCOME_STATUS[outcome],
      priority: random() < 0.1 ? 'URGENT' : 'STANDARD',
      outcome,
      outcomeReason: outcome === 'REJECTED' ? 'Recommendation unsuitable for the client' : null,
      modifications: outcome === 'APPROVED_WITH_MODIFICATIONS' ? 'Risk warnings reworded' : null,
      assignedReviewerId: reviewer.id,
      assignedAt: iso(submittedAt + 1000),
      completedAt: iso(decidedAt),
      submittedAt: iso(submittedAt),
      slaDeadline: slaDeadline(iso(submittedAt)),
      aiContext: model ? { model: { ...model } } : null,
      vulnerabilityFlags: flagged ? [pick(FLAGS)] : [],
      requiresSeniorSignOff: flagged,
      clientSegments: { ageBand: pick(AGE), riskProfile: pick(RISK), region: pick(REGION) },
      ledgerRecordId: null,
      certificateId: null,
      annotationCount: Math.floor(random() * 4),
      slaBreachedAt: null,
      submittedBy: { kind: 'user', id: input.admin.id },
      actionLog: [],
      pendingCompletion: null,
    };
    jobs.push(job);
    const role = reviewer.role;
    let reviewCompletedId = '';
    let outcomeIndex = -1;
    at(submittedAt, (id, _i, ts) => {
      job.id = `${ID_PREFIX.job}_${ulidAt(Date.parse(ts))}`;
      job.documentUrl = `immutable://documents/${firmId}/${job.id}/document.pdf`;
      return {
        eventType: 'DOCUMENT_SUBMITTED',
        actor: admin,
        documentHash: job.documentHash,
        documentMetadata: submittedMetadata(job, model),
        reviewJobId: job.id,
      };
    });
    at(startedAt, () => ({
      eventType: 'REVIEW_STARTED',
      actor: actorOfUser(reviewer),
      documentHash: job.documentHash,
      documentMetadata: { ...jobMetadata(job), fromStatus: 'ASSIGNED', reviewerRole: role },
      reviewJobId: job.id,
    }));
    if (breach)
      at(Date.parse(job.slaDeadline) + 60_000, (_id, _i, ts) => {
        job.slaBreachedAt = ts;
        return {
          eventType: 'SLA_BREACHED',
          actor: { id: 'system:sla-sweep', name: 'SLA sweep', fcaRef: null },
          documentHash: job.documentHash,
          documentMetadata: { ...jobMetadata(job), slaDeadline: job.slaDeadline, status: 'IN_REVIEW' },
          reviewJobId: job.id,
        };
      });
    if (escalate)
      at(startedAt + (decidedAt - startedAt) / 2, (_id, _i, ts) => {
        job.escalatedAt = ts;
        job.escalationReason = 'Second opinion on suitability';
        return {
          eventType: 'JOB_ESCALATED',
          actor: actorOfUser(reviewer),
          documentHash: job.documentHash,
          documentMetadata: {
            ...jobMetadata(job),
            reason: job.escalationReason,
            fromStatus: 'IN_REVIEW',
            reviewerRole: role,
          },
          reviewJobId: job.id,
        };
      });
    at(decidedAt, (id) => {
      reviewCompletedId = id;
      return {
        eventType: 'REVIEW_COMPLETED',
        actor: actorOfUser(reviewer),
        documentHash: job.documentHash,
        documentMetadata: {
          ...jobMetadata(job),
          outcome,
          outcomeReason: job.outcomeReason,
          modifications: job.modifications,
          checklist: null,
          annotations: [],
          annotationCount: job.annotationCount,
          reviewerRole: role,
        },
        reviewJobId: job.id,
      };
    });
    at(decidedAt + 5, (id, index) => {
      job.ledgerRecordId = id;
      outcomeIndex = index;
      return {
        eventType: OUTCOME_EVENT[outcome],
        actor: actorOfUser(reviewer),
        documentHash: job.documentHash,
        documentMetadata: {
          ...jobMetadata(job),
          outcome,
          outcomeReason: job.outcomeReason,
          modifications: job.modifications,
          reviewCompletedRecordId: reviewCompletedId,
          reviewerRole: role,
          decidedAt: job.completedAt,
        },
        reviewJobId: job.id,
      };
    });
    if (j < (counts?.certificates ?? 0)) {
      const certificate: PlannedCertificate = { id: '', certified: -1, issued: -1, issuedAt: '' };
      certificates.push(certificate);
      at(decidedAt + 2 * 60_000, (id, index, ts) => {
        certificate.id = `${ID_PREFIX.certificate}_${ulidAt(Date.parse(ts))}`;
        certificate.certified = outcomeIndex;
        certificate.issued = index;
        certificate.issuedAt = ts;
        job.certificateId = certificate.id;
        return {
          eventType: 'CERTIFICATE_ISSUED',
          actor: { id: 'system:certificates', name: 'Certificate service', fcaRef: null },
          documentHash: job.documentHash,
          documentMetadata: {
            ...jobMetadata(job),
            certificateId: certificate.id,
            certifiedRecordId: job.ledgerRecordId,
          },
          reviewJobId: job.id,
        };
      });
    }
  }
  const incidents = addFirmEvents(timeline, input, counts, pick);
  return { payloads: timeline.payloads(firmId), jobs, incidents, certificates };
}

function hex64(random: () => number): string {
  let text = '';
  while (text.length < 64)
    text += Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return text.slice(0, 64);
}
