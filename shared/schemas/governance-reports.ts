import * as z from 'zod';
import { DRIFT_WINDOW_BOUNDS, DRIFT_WINDOW_DEFAULTS } from '../domain/governance/models.js';
import { PERIOD_BOUNDS_TEXT } from '../domain/governance/periods.js';
import { JOB_OUTCOMES } from '../domain/review/jobs.js';
import { Timestamp } from './common.js';
import { ReviewJobDetail } from './review.js';
import { WellFormedString } from './storable-json.js';

const Rate = z
  .number()
  .min(0)
  .max(1)
  .nullable()
  .meta({ description: 'A fraction in [0, 1]; null without data' });
const Interval = z
  .object({ lower: z.number(), upper: z.number() })
  .nullable()
  .meta({ description: '95 % Wilson score interval of the rate; null without data' });

const DateOrDateTime = WellFormedString.max(40).meta({
  description: `ISO date (YYYY-MM-DD) or date-time; a date-only \`to\` means the end of that UTC day; ${PERIOD_BOUNDS_TEXT} (else 400)`,
});

const windowDays = (fallback: number, what: string) =>
  z.coerce
    .number()
    .int()
    .min(DRIFT_WINDOW_BOUNDS.min)
    .max(DRIFT_WINDOW_BOUNDS.max)
    .default(fallback)
    .meta({
      description: `${what}, ${DRIFT_WINDOW_BOUNDS.min} to ${DRIFT_WINDOW_BOUNDS.max} days (default ${fallback})`,
    });

export const DriftQuery = z.object({
  baselineDays: windowDays(
    DRIFT_WINDOW_DEFAULTS.baselineDays,
    'Baseline window, just before the current one',
  ),
  currentDays: windowDays(DRIFT_WINDOW_DEFAULTS.currentDays, 'Current window, ending now'),
});

export const PeriodQuery = z.object({
  from: DateOrDateTime.optional(),
  to: DateOrDateTime.optional(),
});

export const BiasQuery = PeriodQuery.extend({
  rejectionThreshold: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'Absolute rejection-rate threshold for flags, 0 to 1 (default 0.3)' }),
});

export const ModelParams = z.object({
  provider: WellFormedString.min(1).max(200),
  version: WellFormedString.min(1).max(200),
});

export const JobIdParam = z.object({ jobId: WellFormedString.min(1).max(200) });

export const ExplainabilitySearchQuery = z.object({
  clientReference: WellFormedString.min(1)
    .max(200)
    .meta({ description: 'The firm-assigned client reference (required)' }),
});

export const ModelSummary = z
  .object({
    provider: z.string(),
    version: z.string(),
    jobCount: z.int().meta({ description: 'Jobs declaring the model, any status' }),
    completedJobs: z.int(),
    openJobs: z.int(),
    cancelledJobs: z.int(),
    approved: z.int(),
    modified: z.int(),
    rejected: z.int(),
    approvalRate: Rate,
    modificationRate: Rate,
    rejectionRate: Rate,
    annotationCount: z.int(),
    firstSeenAt: Timestamp,
    lastSeenAt: Timestamp,
  })
  .meta({ id: 'ModelSummary' });

const WindowMetrics = z.object({
  completedJobs: z.int(),
  rejectionRate: Rate,
  modificationRate: Rate,
  annotationFrequency: z.number().nullable(),
});

export const ModelDriftSignal = z
  .object({
    provider: z.string(),
    version: z.string(),
    metric: z.enum(['rejectionRate', 'modificationRate', 'annotationFrequency']),
    severity: z.enum(['alert', 'warning', 'info']),
    baselineValue: z.number(),
    currentValue: z.number(),
    delta: z.number(),
    baseline: WindowMetrics,
    current: WindowMetrics,
    message: z.string(),
  })
  .meta({ id: 'ModelDriftSignal' });

const Window = z.object({ from: Timestamp, to: Timestamp });

export const ModelDriftReport = z
  .object({
    signals: z.array(ModelDriftSignal),
    thresholds: z.record(z.string(), z.unknown()),
    baselineWindowDays: z.int(),
    currentWindowDays: z.int(),
    baselineWindow: Window,
    currentWindow: Window,
  })
  .meta({ id: 'ModelDriftReport' });

export const ModelTimelinePoint = z
  .object({
    weekStart: Timestamp,
    periodFrom: Timestamp,
    periodTo: Timestamp,
    completedJobs: z.int(),
    approvalRate: Rate,
    modificationRate: Rate,
    rejectionRate: Rate,
    annotationCount: z.int(),
    annotationFrequency: z.number().nullable(),
  })
  .meta({ id: 'ModelTimelinePoint' });

const Segment = z.object({
  value: z.string(),
  total: z.int(),
  rejected: z.int(),
  rejectionRate: Rate,
  rejectionRateInterval: Interval,
  favourableRate: Rate,
  deltaFromBaseline: z.number().nullable(),
  significant: z.boolean(),
  disparateImpactRatio: z.number().nullable(),
  fourFifthsRulePasses: z.boolean().nullable(),
  eligible: z.boolean(),
});

export const SegmentDimension = z
  .object({
    dimension: z.string(),
    total: z.int(),
    rejected: z.int(),
    baselineRejectionRate: Rate,
    baselineInterval: Interval,
    referenceSegment: z.string().nullable(),
    segments: z.array(Segment),
    fourFifthsViolations: z.array(z.string()),
  })
  .meta({ id: 'SegmentDimension' });

export const BiasFlag = z
  .object({
    kind: z.enum(['divergence', 'absolute']),
    severity: z.enum(['warning', 'alert']),
    dimension: z.string(),
    segment: z.string(),
    rejectionRate: z.number(),
    baselineRejectionRate: Rate,
    deltaFromBaseline: z.number().nullable(),
    threshold: z.number(),
    sampleSize: z.int(),
    rejectionRateInterval: Interval,
    message: z.string(),
  })
  .meta({ id: 'BiasFlag' });

export const BiasTrendPoint = z
  .object({ month: z.string(), total: z.int(), rejected: z.int(), rejectionRate: Rate })
  .meta({ id: 'BiasTrendPoint' });

export const BiasReport = z
  .object({
    periodFrom: Timestamp,
    periodTo: Timestamp,
    totalRecords: z.int(),
    overallRejectionRate: Rate,
    dimensions: z.array(SegmentDimension),
    flags: z.array(BiasFlag),
    thresholds: z.object({ warning: z.number(), alert: z.number(), absoluteRejectionAlert: z.number() }),
    rejectionAlertThreshold: z.number(),
    trend: z.array(BiasTrendPoint),
    method: z.object({
      minimumSegmentSize: z.int(),
      confidenceLevel: z.number(),
      interval: z.string(),
      favourableOutcomes: z.array(z.enum(JOB_OUTCOMES)),
      fourFifthsRatio: z.number(),
    }),
  })
  .meta({ id: 'BiasReport' });

export const VulnerabilityReport = z
  .object({
    totalFlaggedJobs: z.int(),
    totalUnflaggedJobs: z.int(),
    flagBreakdown: z.array(
      z
        .object({
          flag: z.string(),
          totalJobs: z.int(),
          openJobs: z.int(),
          completedJobs: z.int(),
          approved: z.int(),
          approvedWithModifications: z.int(),
          rejected: z.int(),
          rejectionRate: Rate,
        })
        .meta({ id: 'VulnerabilityFlagBreakdown' }),
    ),
    specialistReviewerCount: z.int(),
    eligibleReviewerCount: z.int(),
    totalReviewerCount: z.int(),
    awaitingSeniorSignOff: z.int(),
    recentFlaggedJobs: z.array(z.record(z.string(), z.unknown())),
  })
  .meta({ id: 'VulnerabilityReport' });

const Outcomes = z.object({
  total: z.int(),
  approved: z.int(),
  approvedWithModifications: z.int(),
  rejected: z.int(),
  approvalRate: Rate,
  modificationRate: Rate,
  rejectionRate: Rate,
});
const Sla = z.object({ completed: z.int(), withinSla: z.int(), breached: z.int(), complianceRate: Rate });
const AnchorRecord = z
  .object({
    id: z.string(),
    sequenceNumber: z.int(),
    timestamp: Timestamp,
    eventType: z.string(),
    chainHash: z.string(),
  })
  .nullable();
const State = z.enum(['ok', 'warning', 'alert', 'no_data', 'not_measured']);

export const ConsumerDutyReport = z
  .object({
    periodFrom: Timestamp,
    periodTo: Timestamp,
    metrics: z
      .object({
        outcomes: Outcomes,
        slaCompliance: Sla,
        reviewerWorkload: z.array(
          Outcomes.extend({
            reviewerId: z.string(),
            reviewerName: z.string().nullable(),
            reviewerRole: z.string().nullable(),
            withinSla: z.int(),
            breached: z.int(),
          }),
        ),
        documentTypes: z.array(Outcomes.extend({ documentType: z.string() })),
        monthly: z.array(
          Outcomes.extend({
            month: z.string(),
            withinSla: z.int(),
            breached: z.int(),
            slaComplianceRate: Rate,
          }),
        ),
        previousPeriod: z.object({
          periodFrom: Timestamp,
          periodTo: Timestamp,
          outcomes: Outcomes,
          slaCompliance: Sla,
        }),
        ledgerAnchor: z.object({
          firstRecord: AnchorRecord,
          lastRecord: AnchorRecord,
          recordCount: z.int(),
          chainHash: z.string().nullable(),
        }),
        states: z.object({ rejectionRate: State, slaCompliance: State, readCompletion: State }),
        readCompletionRate: Rate,
        thresholds: z.record(z.string(), z.number()),
      })
      .meta({ id: 'ConsumerDutyMetrics' }),
  })
  .meta({ id: 'ConsumerDutyReport' });

export const ExplainabilityRecord = z
  .object({
    /** The job as GET /v1/review/jobs/{id} shows it: review actions anonymised, no workflow internals. */
    job: ReviewJobDetail,
    reviewer: z.record(z.string(), z.unknown()).nullable(),
    certificate: z.object({ id: z.string(), verificationPath: z.string() }).nullable(),
    ledgerRecord: z.record(z.string(), z.unknown()).nullable(),
    firm: z.object({ id: z.string(), name: z.string(), frnNumber: z.string() }),
  })
  .meta({ id: 'ExplainabilityRecord' });
