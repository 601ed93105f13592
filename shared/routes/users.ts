import * as z from 'zod';
import { IdParam } from '../schemas/common.js';
import { CreateUserBody, UpdateUserBody, User } from '../schemas/users.js';
import { route } from './route.js';

/** FIRM_ADMIN users and API keys (which act for the firm). */
const ADMIN = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN'] } as const;
/** Lead reviewers see the team too: they work the escalation queue and hand jobs on. */
const ADMIN_OR_LEAD = {
  kind: 'authenticated',
  credentials: 'any',
  roles: ['FIRM_ADMIN', 'LEAD_REVIEWER'],
} as const;

export const listUsers = route({
  operationId: 'listUsers',
  method: 'GET',
  path: '/v1/firm/me/users',
  handler: 'functions/users/list-users',
  auth: ADMIN_OR_LEAD,
  permissions: { main: 'read' },
  tag: 'Users',
  summary: "The firm's users, deactivated ones included",
  description: 'Oldest first. Callable by FIRM_ADMIN and LEAD_REVIEWER users and by API keys.',
  request: {},
  responses: { 200: { description: 'Users, oldest first', schema: z.array(User) } },
});

export const createUser = route({
  operationId: 'createUser',
  method: 'POST',
  path: '/v1/firm/me/users',
  handler: 'functions/users/create-user',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Users',
  summary: 'Invite a user',
  description:
    'FIRM_ADMIN users and API keys may create REVIEWER users; any other role needs a signed-in FIRM_ADMIN (403). The e-mail is unique within the firm, case-insensitively, deactivated users included (409). The user signs in through the identity provider with that e-mail.',
  request: { body: CreateUserBody },
  responses: { 201: { description: 'The new user', schema: User } },
});

export const updateUser = route({
  operationId: 'updateUser',
  method: 'POST',
  path: '/v1/firm/me/users/{id}',
  handler: 'functions/users/update-user',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Users',
  summary: "Change a user's specialist flag or role",
  description:
    'specialistVulnerability: FIRM_ADMIN users or API keys. role: only a signed-in FIRM_ADMIN (403 FORBIDDEN otherwise). A deactivated user cannot be changed, and demoting the last active FIRM_ADMIN is refused (409 CONFLICT).',
  request: { params: IdParam, body: UpdateUserBody },
  responses: { 200: { description: 'The user after the change', schema: User } },
});

export const deactivateUser = route({
  operationId: 'deactivateUser',
  method: 'DELETE',
  path: '/v1/firm/me/users/{id}',
  handler: 'functions/users/deactivate-user',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Users',
  summary: 'Deactivate a user',
  description:
    'Stamps deactivatedAt and makes the user unavailable; their tokens are refused (401) from the next request on. The user is kept for audit and their e-mail stays taken. Idempotent. Deactivating oneself is 400; deactivating the last active FIRM_ADMIN is 409.',
  request: { params: IdParam },
  responses: { 204: { description: 'Deactivated (or already deactivated)' } },
});

/** Who the signed-in user is: the console reads its name, role and flags from here (issue 16). */
export const getCurrentUser = route({
  operationId: 'getCurrentUser',
  method: 'GET',
  path: '/v1/firm/me/user',
  handler: 'functions/users/get-current-user',
  auth: { kind: 'authenticated', credentials: 'user' },
  permissions: { main: 'read' },
  tag: 'Users',
  summary: 'The signed-in user',
  description:
    "The caller's own user record, whatever the role (the web console builds its navigation from the role). Users only: an API key is 403.",
  request: {},
  responses: { 200: { description: 'The signed-in user', schema: User } },
});
