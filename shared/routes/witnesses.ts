import * as z from 'zod';
import { CreateWitnessBody, Witness, WitnessKeyIdParam } from '../schemas/witnesses.js';
import { route } from './route.js';

/**
 * The witnesses of the firm's verifiable log (issue 31): they cosign each checkpoint only if it is consistent with
 * the last one they saw. Only firm administrators (and the firm's full API keys) manage them.
 */
const ADMIN = { kind: 'authenticated', credentials: 'any', roles: ['FIRM_ADMIN'] } as const;

export const listWitnesses = route({
  operationId: 'listWitnesses',
  method: 'GET',
  path: '/v1/firm/me/witnesses',
  handler: 'functions/witnesses/list-witnesses',
  auth: ADMIN,
  permissions: { main: 'read' },
  tag: 'Witnesses',
  summary:
    "The witnesses the firm's checkpoints are submitted to, the platform's and the firm's, with their status",
  request: {},
  responses: {
    200: { description: 'Platform witnesses first, then the firm’s by key ID', schema: z.array(Witness) },
  },
});

export const createWitness = route({
  operationId: 'createWitness',
  method: 'POST',
  path: '/v1/firm/me/witnesses',
  handler: 'functions/witnesses/create-witness',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Witnesses',
  summary: 'Register a witness (its C2SP vkey and submission URL)',
  description:
    "From the next checkpoint on, the service submits each new checkpoint of the firm's log to the witness (C2SP tlog-witness add-checkpoint, with the consistency proof from the size it last acknowledged) and serves its verified cosignature with the checkpoint (GET /v1/ledger/log/checkpoint). 400 for a vkey that is not a type 0x04 C2SP vkey with a matching key ID, or a URL the webhook URL rules refuse; 409 when a witness of that key ID is already registered or is a platform witness, or the firm has 10.",
  request: { body: CreateWitnessBody },
  responses: { 201: { description: 'The witness', schema: Witness } },
});

export const deleteWitness = route({
  operationId: 'deleteWitness',
  method: 'DELETE',
  path: '/v1/firm/me/witnesses/{keyId}',
  handler: 'functions/witnesses/delete-witness',
  auth: ADMIN,
  permissions: { main: 'write' },
  tag: 'Witnesses',
  summary: 'Stop submitting to a witness (cosignatures it gave stay with their checkpoints)',
  description: '404 for a key ID the firm has not registered; 409 for a platform witness.',
  request: { params: WitnessKeyIdParam },
  responses: { 204: { description: 'Removed' } },
});
