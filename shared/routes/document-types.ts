import * as z from 'zod';
import {
  CreateDocumentTypeBody,
  DocumentType,
  SlugParam,
  UpdateDocumentTypeBody,
} from '../schemas/document-types.js';
import { ANY_CREDENTIAL, route } from './route.js';

/** FIRM_ADMIN users and API keys (which act for the firm). */
const ADMIN = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN'] } as const;

export const listDocumentTypes = route({
  operationId: 'listDocumentTypes',
  method: 'GET',
  path: '/v1/firm/me/document-types',
  handler: 'functions/document-types/list-document-types',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'DocumentTypes',
  summary: 'Document types with their review checklists',
  description:
    'The platform defaults (firmId "platform", id doctype_<slug>) in a fixed order, each replaced by the firm\'s override when it has one, then the firm\'s own types by slug.',
  request: {},
  responses: { 200: { description: 'Document types', schema: z.array(DocumentType) } },
});

export const createDocumentType = route({
  operationId: 'createDocumentType',
  method: 'POST',
  path: '/v1/firm/me/document-types',
  handler: 'functions/document-types/create-document-type',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'DocumentTypes',
  summary: 'Add a custom document type',
  description:
    'A slug the firm already uses, or one of a platform default, is 409 CONFLICT (customise a default with PATCH).',
  request: { body: CreateDocumentTypeBody },
  responses: { 201: { description: 'The new document type', schema: DocumentType } },
});

export const updateDocumentType = route({
  operationId: 'updateDocumentType',
  method: 'PATCH',
  path: '/v1/firm/me/document-types/{slug}',
  handler: 'functions/document-types/update-document-type',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'DocumentTypes',
  summary: "Change a document type's name or checklist",
  description:
    "Patching a platform default creates the firm's own override of that slug (the default's fields with the change applied); from then on the firm's list and its job submissions use the override. Other firms keep the default.",
  request: { params: SlugParam, body: UpdateDocumentTypeBody },
  responses: { 200: { description: 'The document type after the change', schema: DocumentType } },
});
