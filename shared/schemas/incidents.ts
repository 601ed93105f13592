import * as z from 'zod';
import {
  INCIDENT_CATEGORIES,
  INCIDENT_SEVERITIES,
  INCIDENT_STATUSES,
  REMEDIATION_STATUSES,
  type IncidentCategory,
} from '../domain/governance/incidents.js';
import { Cursor, Timestamp } from './common.js';
import { ActorSummary } from './governance-actors.js';
import { uniqueArray } from './unique-items.js';
import { StorableJsonObject, WellFormedString } from './storable-json.js';

const text = (max: number) => WellFormedString.trim().min(1).max(max);
const ulidId = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`));

/** Most affected jobs or records one incident lists. */
export const MAX_AFFECTED = 100;

export const IncidentParams = z.object({ id: WellFormedString.min(1).max(200) });
export const RemediationParams = z.object({
  id: WellFormedString.min(1).max(200),
  remediationId: WellFormedString.min(1).max(200),
});

export const CreateIncidentBody = z
  .strictObject({
    title: text(200),
    description: text(20_000),
    severity: z.enum(INCIDENT_SEVERITIES),
    category: z.enum(INCIDENT_CATEGORIES),
    affectedReviewJobIds: uniqueArray(ulidId('job'), 'job id').max(MAX_AFFECTED).default([]).meta({
      description: "Jobs of the firm (job_<ULID>); an id that is not one of the firm's jobs is 400",
    }),
    affectedLedgerRecordIds: uniqueArray(ulidId('rec'), 'record id').max(MAX_AFFECTED).default([]).meta({
      description:
        'Ledger record ids (rec_<ULID>); checked for form only, since an incident may concern a record that was deleted or tampered with',
    }),
    metadata: StorableJsonObject.default({}),
  })
  .meta({ id: 'CreateIncident' });

export const UpdateIncidentBody = z
  .strictObject({
    status: z.enum(INCIDENT_STATUSES).optional().meta({
      description:
        'OPEN -> INVESTIGATING, REMEDIATING, RESOLVED, CLOSED; INVESTIGATING <-> REMEDIATING; either -> RESOLVED, CLOSED; RESOLVED -> CLOSED. CLOSED is final.',
    }),
    rootCause: WellFormedString.trim()
      .min(1)
      .max(20_000)
      .nullable()
      .optional()
      .meta({ description: 'null clears it' }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'The update is empty' })
  .meta({ id: 'UpdateIncident' });

export const CreateRemediationBody = z
  .strictObject({
    description: text(5_000),
    ownerName: text(200).nullable().optional(),
    dueAt: Timestamp.nullable().optional(),
  })
  .meta({ id: 'CreateRemediation' });

export const UpdateRemediationBody = z
  .strictObject({
    status: z.enum(REMEDIATION_STATUSES).optional(),
    description: text(5_000).optional(),
    ownerName: text(200).nullable().optional(),
    dueAt: Timestamp.nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'The update is empty' })
  .meta({ id: 'UpdateRemediation' });

export const Remediation = z
  .object({
    id: z.string().meta({ description: 'rem_<ULID>' }),
    incidentId: z.string(),
    description: z.string(),
    status: z.enum(REMEDIATION_STATUSES),
    ownerName: z.string().nullable(),
    dueAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable().meta({
      description: 'Set when status becomes COMPLETED, cleared otherwise',
    }),
    createdAt: Timestamp,
  })
  .meta({ id: 'IncidentRemediation' });

export const Incident = z
  .object({
    id: z.string().meta({ description: 'inc_<ULID>' }),
    firmId: z.string(),
    title: z.string(),
    description: z.string(),
    severity: z.enum(INCIDENT_SEVERITIES),
    category: z.enum(INCIDENT_CATEGORIES),
    status: z.enum(INCIDENT_STATUSES),
    reportedAt: Timestamp,
    reportedById: z.string().nullable().meta({ description: 'User id; null when an API key reported it' }),
    resolvedAt: Timestamp.nullable().meta({
      description: 'Stamped by the server on the first move to RESOLVED or CLOSED; clients cannot set it',
    }),
    rootCause: z.string().nullable(),
    affectedReviewJobIds: z.array(z.string()),
    affectedLedgerRecordIds: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    remediations: z.array(Remediation),
    reportedBy: ActorSummary.nullable(),
  })
  .meta({ id: 'Incident' });

/** GET /v1/incidents: the most recent `limit` incidents (issue 14: bounded, the rest by Link rel="next"). */
export const INCIDENT_LIST_LIMIT = 200;
export const IncidentListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(INCIDENT_LIST_LIMIT)
    .default(INCIDENT_LIST_LIMIT)
    .meta({
      description: `Most incidents returned, 1 to ${INCIDENT_LIST_LIMIT} (default ${INCIDENT_LIST_LIMIT})`,
    }),
  cursor: Cursor,
});

export const IncidentStats = z
  .object({
    total: z.int(),
    open: z.int().meta({ description: 'OPEN, INVESTIGATING or REMEDIATING' }),
    resolved: z.int().meta({ description: 'RESOLVED or CLOSED' }),
    critical: z.int().meta({ description: 'Severity CRITICAL, any status' }),
    byCategory: z
      .object(
        Object.fromEntries(INCIDENT_CATEGORIES.map((c) => [c, z.int()])) as Record<
          IncidentCategory,
          z.ZodInt
        >,
      )
      .meta({ description: 'Every category, zeros included' }),
    trend: z
      .array(
        z.object({
          month: z.string().meta({ description: 'YYYY-MM (UTC)' }),
          reported: z.int(),
          resolved: z.int().meta({ description: 'Incidents whose resolvedAt falls in the month' }),
          critical: z.int().meta({ description: 'CRITICAL incidents reported in the month' }),
        }),
      )
      .meta({ description: 'The trailing 12 calendar months including the current one, oldest first' }),
  })
  .meta({ id: 'IncidentStats' });
