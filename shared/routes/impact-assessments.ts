import * as z from 'zod';
import { ARRAY_LIST_NOTE, ArrayListQuery, IdParam } from '../schemas/common.js';
import {
  CreateImpactAssessmentBody,
  ImpactAssessment,
  UpdateImpactAssessmentBody,
} from '../schemas/impact-assessments.js';
import { ANY_CREDENTIAL, route } from './route.js';

export const listImpactAssessments = route({
  operationId: 'listImpactAssessments',
  method: 'GET',
  path: '/v1/impact-assessments',
  handler: 'functions/impact-assessments/list-assessments',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: "The firm's AI impact assessments, newest first",
  description: `Newest first (createdAt, then id). ${ARRAY_LIST_NOTE}`,
  request: { query: ArrayListQuery },
  responses: {
    200: { description: 'Assessments of the firm, newest first', schema: z.array(ImpactAssessment) },
  },
});

export const createImpactAssessment = route({
  operationId: 'createImpactAssessment',
  method: 'POST',
  path: '/v1/impact-assessments',
  handler: 'functions/impact-assessments/create-assessment',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Governance',
  summary: 'Start a Consumer Duty impact assessment of an AI use case (DRAFT)',
  description:
    'useCase and description are required (400 otherwise). modelProvider and modelVersion go together; they tie the assessment to the model that the job-submission gate checks. Omitted outcome areas start with an empty response rated LOW.',
  request: { body: CreateImpactAssessmentBody },
  responses: { 201: { description: 'The new DRAFT assessment', schema: ImpactAssessment } },
});

export const getImpactAssessment = route({
  operationId: 'getImpactAssessment',
  method: 'GET',
  path: '/v1/impact-assessments/{id}',
  handler: 'functions/impact-assessments/get-assessment',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Governance',
  summary: 'One impact assessment',
  description: "404 for an unknown id or another firm's assessment.",
  request: { params: IdParam },
  responses: { 200: { description: 'The assessment', schema: ImpactAssessment } },
});

export const updateImpactAssessment = route({
  operationId: 'updateImpactAssessment',
  method: 'POST',
  path: '/v1/impact-assessments/{id}',
  handler: 'functions/impact-assessments/update-assessment',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write', ledger: 'append', immutable: 'write', sign: true },
  tag: 'Governance',
  summary: 'Edit an impact assessment and/or move its status',
  description:
    'Moves: DRAFT -> PENDING_SIGNOFF; PENDING_SIGNOFF -> APPROVED, REJECTED or DRAFT; REJECTED -> DRAFT. Approval needs a signed-in LEAD_REVIEWER or FIRM_ADMIN (an API key or a REVIEWER: 403); it stamps signedOffAt and the signer, writes IMPACT_ASSESSMENT_APPROVED and sets ledgerRecordId in one transaction, and from then on the model it names passes the job-submission gate. APPROVED and SUPERSEDED assessments are immutable (409); a move the graph does not allow is 409; an unknown status is 400.',
  request: { params: IdParam, body: UpdateImpactAssessmentBody },
  responses: { 200: { description: 'The assessment after the change', schema: ImpactAssessment } },
});

export const supersedeImpactAssessment = route({
  operationId: 'supersedeImpactAssessment',
  method: 'POST',
  path: '/v1/impact-assessments/{id}/supersede',
  handler: 'functions/impact-assessments/supersede-assessment',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'write' },
  tag: 'Governance',
  summary: 'Supersede an APPROVED impact assessment',
  description:
    'APPROVED -> SUPERSEDED (any other status: 409). The assessment is kept for audit and no longer counts toward the job-submission gate; another APPROVED assessment of the same model still does.',
  request: { params: IdParam },
  responses: { 200: { description: 'The superseded assessment', schema: ImpactAssessment } },
});
