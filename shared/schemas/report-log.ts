import * as z from 'zod';
import { REPORT_TYPES } from '../domain/governance/report-log.js';
import { ArrayListQuery, Timestamp } from './common.js';
import { ActorSummary } from './governance-actors.js';
import { StorableJsonObject } from './storable-json.js';

const PeriodBound = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);

export const ReportLogQuery = ArrayListQuery.extend({
  type: z.enum(REPORT_TYPES).optional().meta({ description: 'Only entries of this report type' }),
});

export const CreateReportLogBody = z
  .strictObject({
    type: z.enum(REPORT_TYPES),
    periodFrom: PeriodBound.meta({
      description: 'ISO date (start of that UTC day) or date-time; stored as UTC with milliseconds',
    }),
    periodTo: PeriodBound.meta({
      description: 'ISO date (end of that UTC day, 23:59:59.999) or date-time; not before periodFrom',
    }),
    metadata: StorableJsonObject.default({}),
  })
  .meta({ id: 'CreateReportLogEntry' });

export const ReportLogEntry = z
  .object({
    id: z.string().meta({ description: 'rpt_<ULID>' }),
    firmId: z.string(),
    type: z.enum(REPORT_TYPES),
    periodFrom: Timestamp,
    periodTo: Timestamp,
    generatedAt: Timestamp,
    generatedByUserId: z.string().nullable().meta({ description: 'The signed-in user; null for an API key' }),
    metadata: z.record(z.string(), z.unknown()),
    generatedByUser: ActorSummary.nullable().meta({
      description: 'Who generated it (an API key is named with type API_KEY)',
    }),
  })
  .meta({ id: 'ReportLogEntry' });
