import * as z from 'zod';
import {
  CreateIncidentBody,
  CreateRemediationBody,
  Incident,
  IncidentListQuery,
  IncidentParams,
  IncidentStats,
  Remediation,
  RemediationParams,
  UpdateIncidentBody,
  UpdateRemediationBody,
} from '../schemas/incidents.js';
import { ANY_CREDENTIAL, route } from './route.js';

const APPENDS = { main: 'write', ledger: 'append', immutable: 'write', sign: true } as const;

export const listIncidents = route({
  operationId: 'listIncidents',
  method: 'GET',
  path: '/v1/incidents',
  handler: 'functions/incidents/list-incidents',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'The most recent incidents (200 by default), newest first, with remediations and reporter',
  description: `At most limit incidents (1 to 200, default 200). When more follow, the answer has a header \`Link: <same path and query with cursor=...>; rel="next"\` (RFC 8288); request that URL for the next, older incidents. A cursor is bound to the firm and the query (400 otherwise).`,
  request: { query: IncidentListQuery },
  responses: { 200: { description: 'Incidents', schema: z.array(Incident) } },
});

export const createIncident = route({
  operationId: 'createIncident',
  method: 'POST',
  path: '/v1/incidents',
  handler: 'functions/incidents/create-incident',
  auth: ANY_CREDENTIAL,
  permissions: APPENDS,
  tag: 'Governance',
  summary: 'Log an incident (status OPEN); writes INCIDENT_LOGGED',
  description:
    "The incident and its INCIDENT_LOGGED record (snapshot: incidentId, title, severity, category, affected jobs and records, reportedAt) commit together. Affected jobs must be the firm's (400 otherwise).",
  request: { body: CreateIncidentBody },
  responses: { 201: { description: 'The new incident', schema: Incident } },
});

export const getIncidentStats = route({
  operationId: 'getIncidentStats',
  method: 'GET',
  path: '/v1/incidents/stats',
  handler: 'functions/incidents/get-stats',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'Incident statistics with a 12-month trend',
  request: {},
  responses: { 200: { description: 'Statistics over every incident of the firm', schema: IncidentStats } },
});

export const getIncident = route({
  operationId: 'getIncident',
  method: 'GET',
  path: '/v1/incidents/{id}',
  handler: 'functions/incidents/get-incident',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'One incident with its remediations',
  description: "404 for an unknown id or another firm's incident.",
  request: { params: IncidentParams },
  responses: { 200: { description: 'The incident', schema: Incident } },
});

export const updateIncident = route({
  operationId: 'updateIncident',
  method: 'POST',
  path: '/v1/incidents/{id}',
  handler: 'functions/incidents/update-incident',
  auth: ANY_CREDENTIAL,
  permissions: APPENDS,
  tag: 'Governance',
  summary: 'Move an incident and/or set its root cause',
  description:
    'The first move to RESOLVED or CLOSED stamps resolvedAt and writes INCIDENT_RESOLVED once, atomically. resolvedAt cannot be sent (400). A move the graph does not allow, or any change to a CLOSED incident, is 409.',
  request: { params: IncidentParams, body: UpdateIncidentBody },
  responses: { 200: { description: 'The incident after the change', schema: Incident } },
});

export const createRemediation = route({
  operationId: 'createRemediation',
  method: 'POST',
  path: '/v1/incidents/{id}/remediations',
  handler: 'functions/incidents/create-remediation',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Governance',
  summary: 'Add a remediation action (status OPEN) to an incident',
  description: 'A CLOSED incident takes no new actions (409).',
  request: { params: IncidentParams, body: CreateRemediationBody },
  responses: { 201: { description: 'The new remediation', schema: Remediation } },
});

export const updateRemediation = route({
  operationId: 'updateRemediation',
  method: 'POST',
  path: '/v1/incidents/{id}/remediations/{remediationId}',
  handler: 'functions/incidents/update-remediation',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Governance',
  summary: 'Change a remediation action',
  description:
    'completedAt is set when status becomes COMPLETED and cleared for any other status; it cannot be sent. Any status may follow any other. A CLOSED incident is final (409).',
  request: { params: RemediationParams, body: UpdateRemediationBody },
  responses: { 200: { description: 'The remediation after the change', schema: Remediation } },
});
