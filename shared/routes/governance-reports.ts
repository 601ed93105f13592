import * as z from 'zod';
import {
  BiasQuery,
  BiasReport,
  ConsumerDutyReport,
  DriftQuery,
  ExplainabilityRecord,
  ExplainabilitySearchQuery,
  JobIdParam,
  ModelDriftReport,
  ModelParams,
  ModelSummary,
  ModelTimelinePoint,
  PeriodQuery,
  VulnerabilityReport,
} from '../schemas/governance-reports.js';
import { MAX_PERIOD_DAYS, PERIOD_BOUNDS_TEXT } from '../domain/governance/periods.js';
import { ANY_CREDENTIAL, route } from './route.js';

/** Explainability names the reviewer: API keys (the firm) and senior users only. */
const SENIOR = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN', 'LEAD_REVIEWER'] } as const;

export const listModels = route({
  operationId: 'listModels',
  method: 'GET',
  path: '/v1/models',
  handler: 'functions/governance/list-models',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'AI models seen on review jobs, with usage counts and outcome rates',
  description:
    'One entry per provider/version declared in aiContext.model of any job (any status). Rates are over completed jobs; null when none completed. Reads every job of the firm.',
  request: {},
  responses: { 200: { description: 'Model summaries', schema: z.array(ModelSummary) } },
});

export const modelDrift = route({
  operationId: 'getModelDrift',
  method: 'GET',
  path: '/v1/models/drift',
  handler: 'functions/governance/model-drift',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'Drift of each AI model: current window against the baseline window before it',
  description:
    'Per provider/version, rejection rate, modification rate and annotation frequency (annotations per completed job) of the trailing currentDays against the baselineDays before them, by completion time. A model yields signals only with at least 5 completed jobs in both windows; one signal per metric, severity alert, warning or info by the returned thresholds (absolute change), sorted alert first. 400 when a window is not an integer from 1 to 730.',
  request: { query: DriftQuery },
  responses: { 200: { description: 'The drift report', schema: ModelDriftReport } },
});

export const modelTimeline = route({
  operationId: 'getModelTimeline',
  method: 'GET',
  path: '/v1/models/{provider}/{version}/timeline',
  handler: 'functions/governance/model-timeline',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'Weekly outcome rates and annotation counts of one AI model',
  description: `One point per ISO week (Monday 00:00 UTC) touched by [from, to], oldest first, empty weeks included; jobs count in the week of their completion. from defaults to 180 days before now, to to now; a date-only to is the end of that day. Bounded: ${PERIOD_BOUNDS_TEXT}. 400 with details when from is after to, a bound is not a date, or the period exceeds these bounds.`,
  request: { params: ModelParams, query: PeriodQuery },
  responses: { 200: { description: 'Weekly points', schema: z.array(ModelTimelinePoint) } },
});

export const biasReport = route({
  operationId: 'getBiasReport',
  method: 'GET',
  path: '/v1/bias',
  handler: 'functions/governance/bias-report',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'Bias (fairness) report over the client segments of completed jobs',
  description: `Per segment dimension, each segment's rejection rate (95 % Wilson interval) against the dimension baseline, its disparate-impact ratio (favourable-outcome rate over the most favoured segment's) and the four-fifths rule. Divergence flags use the firm's bias thresholds, absolute flags rejectionThreshold; segments under the minimum size (method.minimumSegmentSize) are never flagged. from defaults to 12 months ago, to to now; a date-only from is the start and a date-only to the end (23:59:59.999 UTC) of that day, both inclusive. Bounded: ${PERIOD_BOUNDS_TEXT}; 400 with details beyond (at most ${MAX_PERIOD_DAYS} days per request: ask for a longer history a year at a time).`,
  request: { query: BiasQuery },
  responses: { 200: { description: 'The bias report', schema: BiasReport } },
});

export const vulnerabilityReport = route({
  operationId: 'getVulnerabilityReport',
  method: 'GET',
  path: '/v1/vulnerability',
  handler: 'functions/governance/vulnerability-report',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'Vulnerability handling: flagged jobs, flags, specialist cover, senior sign-off backlog',
  description:
    'Over every job of the firm: flagged and unflagged counts, a breakdown per flag, active reviewers (specialists, all eligible for flagged work, all), open jobs awaiting senior sign-off and the 20 most recently submitted flagged jobs.',
  request: {},
  responses: { 200: { description: 'The vulnerability report', schema: VulnerabilityReport } },
});

export const consumerDutyReport = route({
  operationId: 'getConsumerDutyReport',
  method: 'GET',
  path: '/v1/reports/consumer-duty',
  handler: 'functions/governance/consumer-duty-report',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Governance',
  summary: 'Consumer Duty metrics of a period',
  description: `Outcomes, SLA compliance, reviewer workload, document types and monthly buckets of the jobs completed in the period; the same outcomes and SLA for the previous period of equal length; warning/alert states from the firm's Consumer Duty thresholds; and the ledger anchor: the first and last ledger records timestamped inside the period and the chain hash that binds them. from defaults to the start of the current quarter, to to the end of today; a date-only to is the end of that day. Bounded: ${PERIOD_BOUNDS_TEXT}; 400 with details beyond.`,
  request: { query: PeriodQuery },
  responses: { 200: { description: 'The Consumer Duty report', schema: ConsumerDutyReport } },
});

export const searchExplainability = route({
  operationId: 'searchExplainability',
  method: 'GET',
  path: '/v1/explainability/search',
  handler: 'functions/governance/search-explainability',
  auth: SENIOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Governance',
  summary: 'Explainability records of the completed jobs of a client reference',
  description:
    'Most recently completed first, at most 100. clientReference is required (400 without). Users need role FIRM_ADMIN or LEAD_REVIEWER.',
  request: { query: ExplainabilitySearchQuery },
  responses: { 200: { description: 'Explainability records', schema: z.array(ExplainabilityRecord) } },
});

export const explainJob = route({
  operationId: 'getExplainability',
  method: 'GET',
  path: '/v1/explainability/{jobId}',
  handler: 'functions/governance/explain-job',
  auth: SENIOR,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Governance',
  summary: 'Explainability record of a completed review job',
  description:
    "The job (with its AI context and decision), the reviewer, the certificate, the outcome ledger record and the firm. 404 for an unknown job or another firm's; 409 CONFLICT while the job has no outcome (not completed, or cancelled). Users need role FIRM_ADMIN or LEAD_REVIEWER.",
  request: { params: JobIdParam },
  responses: {
    200: { description: 'The explainability record', schema: ExplainabilityRecord },
    409: { description: 'CONFLICT: the job has no outcome (not completed, or cancelled)' },
  },
});
