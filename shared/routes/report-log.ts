import * as z from 'zod';
import { ARRAY_LIST_NOTE } from '../schemas/common.js';
import { CreateReportLogBody, ReportLogEntry, ReportLogQuery } from '../schemas/report-log.js';
import { ANY_CREDENTIAL, route } from './route.js';

export const listReportLog = route({
  operationId: 'listReportLog',
  method: 'GET',
  path: '/v1/reports',
  handler: 'functions/reports/list-report-log',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'The log of generated reports, newest first',
  description: `type filters on the report type (an unknown type is 400). ${ARRAY_LIST_NOTE}`,
  request: { query: ReportLogQuery },
  responses: { 200: { description: 'Report log entries', schema: z.array(ReportLogEntry) } },
});

export const createReportLogEntry = route({
  operationId: 'createReportLogEntry',
  method: 'POST',
  path: '/v1/reports',
  handler: 'functions/reports/create-report-log-entry',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Governance',
  summary: 'Record that a report was generated',
  description:
    'The server normalises the period (a date-only periodFrom is the start of that UTC day, a date-only periodTo its end, 23:59:59.999; date-times are converted to UTC), refuses periodTo before periodFrom (400), stamps generatedAt and records the caller as generator.',
  request: { body: CreateReportLogBody },
  responses: { 201: { description: 'The new entry', schema: ReportLogEntry } },
});
