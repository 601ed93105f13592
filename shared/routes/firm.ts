import * as z from 'zod';
import {
  ApiKey,
  ApiKeyCreated,
  CreateApiKeyBody,
  Firm,
  FirmSettings,
  FirmSettingsUpdate,
  FirmStats,
  KeyIdParam,
} from '../schemas/firm.js';
import { ANY_CREDENTIAL, route } from './route.js';

const ADMIN = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN'] } as const;

export const getFirm = route({
  operationId: 'getFirm',
  method: 'GET',
  path: '/v1/firm/me',
  handler: 'functions/firm/get-firm',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Firm',
  summary: 'The calling firm',
  request: {},
  responses: { 200: { description: 'The firm with its effective settings', schema: Firm } },
});

export const getSettings = route({
  operationId: 'getFirmSettings',
  method: 'GET',
  path: '/v1/firm/me/settings',
  handler: 'functions/firm/get-settings',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read' },
  tag: 'Firm',
  summary: 'Effective firm settings (defaults filled in)',
  request: {},
  responses: { 200: { description: 'Settings', schema: FirmSettings } },
});

export const updateSettings = route({
  operationId: 'updateFirmSettings',
  method: 'PATCH',
  path: '/v1/firm/me/settings',
  handler: 'functions/firm/update-settings',
  auth: ADMIN,
  permissions: { main: 'write', ledger: 'append', immutable: 'write', sign: true },
  tag: 'Firm',
  summary: 'Change firm settings',
  description:
    'Unchanged values are ignored (nothing stored, no ledger record). A change of a compliance-relevant setting (enforceImpactAssessments) writes FIRM_SETTINGS_UPDATED atomically with the change.',
  request: { body: FirmSettingsUpdate },
  responses: { 200: { description: 'Settings after the update', schema: FirmSettings } },
});

export const getStats = route({
  operationId: 'getFirmStats',
  method: 'GET',
  path: '/v1/firm/me/stats',
  handler: 'functions/firm/get-stats',
  auth: ANY_CREDENTIAL,
  permissions: { main: 'read', ledger: 'read' },
  tag: 'Firm',
  summary: 'Counts of records, certificates and review jobs',
  request: {},
  responses: { 200: { description: 'Statistics', schema: FirmStats } },
});

export const listApiKeys = route({
  operationId: 'listApiKeys',
  method: 'GET',
  path: '/v1/firm/me/api-keys',
  handler: 'functions/firm/list-api-keys',
  auth: ADMIN,
  permissions: { main: 'read' },
  tag: 'Firm',
  summary: 'Active API keys (never the keys themselves)',
  request: {},
  responses: { 200: { description: 'Active keys, oldest first', schema: z.array(ApiKey) } },
});

export const createApiKey = route({
  operationId: 'createApiKey',
  method: 'POST',
  path: '/v1/firm/me/api-keys',
  handler: 'functions/firm/create-api-key',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Firm',
  summary: 'Create an API key',
  request: { body: CreateApiKeyBody },
  responses: { 201: { description: 'The key, shown only this once', schema: ApiKeyCreated } },
});

export const revokeApiKey = route({
  operationId: 'revokeApiKey',
  method: 'DELETE',
  path: '/v1/firm/me/api-keys/{keyId}',
  handler: 'functions/firm/revoke-api-key',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Firm',
  summary: 'Revoke an API key (refused from the next request on)',
  request: { params: KeyIdParam },
  responses: { 204: { description: 'Revoked' } },
});
