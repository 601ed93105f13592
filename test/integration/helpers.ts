import { randomBytes } from 'node:crypto';
import { getUser, putUserItems, type UserItem } from '../../shared/store/user-store.js';
import { DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/store/keys.js';
import type { Role } from '../../shared/domain/auth/principal.js';
import { newId } from '../../shared/ids.js';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { createFirmAsOperator, mintTokenAsOperator } from '../support/operator.js';
import { call } from '../support/stack-client.js';

export interface TestStack {
  baseUrl: string;
  dynamoEndpoint: string;
  dataDir: string;
  pid: number;
}

export const stack: TestStack = JSON.parse(process.env.GLS_TEST_STACK ?? 'null') as TestStack;
if (!stack) throw new Error('GLS_TEST_STACK is not set: run integration tests through jest (global setup)');

/** Dependencies wired to the running stack's DynamoDB Local, object store and signing key. */
export function stackDeps(): Deps {
  return createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
}

export interface Credential {
  key?: string;
  token?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
  headers: Headers;
}

/** An HTTP call to the shared test stack (see `call` in test/support/stack-client.ts). */
export function api<T = any>(
  method: string,
  path: string,
  options: Credential & { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  return call<T>(stack, method, path, options);
}

/**
 * Uploads a document as a client does: `POST /v1/review/uploads` for a presigned URL, then a PUT of the bytes with
 * the headers it names. Returns the document key a submission refers to.
 */
export async function uploadDocument(
  credential: Credential,
  bytes: Uint8Array = new Uint8Array(randomBytes(1_000)),
  filename = 'report.pdf',
): Promise<string> {
  const presigned = await api<{
    uploadUrl: string;
    documentKey: string;
    uploadHeaders: Record<string, string>;
  }>('POST', '/v1/review/uploads', { ...credential, body: { filename } });
  expect(presigned.status).toBe(200);
  const put = await fetch(presigned.body.uploadUrl, {
    method: 'PUT',
    body: bytes,
    headers: presigned.body.uploadHeaders,
  });
  expect(put.status).toBe(200);
  return presigned.body.documentKey;
}

export interface TestFirm {
  firmId: string;
  key: string;
  admin: { id: string; email: string; name: string };
  firm: Record<string, unknown>;
}

let counter = 0;

/** Onboards a fresh firm as an operator would with `ledgerctl firm create` (in this process: ../support/operator.ts). */
export async function createFirm(plan: 'LEDGER' | 'PRINCIPAL' | 'BOTH' = 'BOTH'): Promise<TestFirm> {
  counter += 1;
  const tag = `${process.pid}-${counter}-${Date.now().toString(36)}`;
  const created = await createFirmAsOperator(stack, {
    name: `Firm ${tag}`,
    frnNumber: '123456',
    plan,
    adminName: 'Ann Admin',
    adminEmail: `admin-${tag}@firm.test`,
  });
  return { firmId: created.firm.id, key: created.apiKey, admin: created.admin, firm: created.firm };
}

/** A signed-in user's bearer token, as `ledgerctl token` mints it with the local dev issuer. */
export async function tokenFor(firmId: string, email: string, ttl?: number): Promise<string> {
  return mintTokenAsOperator(stack, firmId, email, ttl);
}

/** Adds a user straight to the store (the user endpoints belong to the review issue). */
export async function seedUser(firmId: string, role: Role, email: string): Promise<UserItem> {
  const deps = stackDeps();
  const user: UserItem = {
    id: newId('user'),
    firmId,
    name: `${role} user`,
    email,
    fcaRef: 'ABC12345',
    qualifications: ['CFP'],
    role,
    isAvailable: true,
    specialistVulnerability: false,
    invitedAt: new Date().toISOString(),
    activatedAt: null,
    deactivatedAt: null,
    activeJobId: null,
  };
  await deps.db.send(new TransactWriteCommand({ TransactItems: putUserItems(deps, user) }));
  return user;
}

/**
 * Seeds the approved-assessment index item for a model (`IAMODEL#<provider>#<version>`) in the shape the
 * impact-assessment approval writes (one APPROVED assessment, `ia_seeded`); `remove` deletes it, as superseding
 * the only approved assessment does. test/integration/impact-assessments.test.ts drives the real flow.
 */
export async function seedApprovedAssessment(
  firmId: string,
  provider: string,
  version: string,
  remove = false,
): Promise<void> {
  const deps = stackDeps();
  const key = keys.impactAssessmentModel(firmId, provider, version);
  if (remove) await deps.db.send(new DeleteCommand({ TableName: deps.tables.main, Key: key }));
  else
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.main,
        Item: {
          ...key,
          assessmentId: 'ia_seeded',
          approved: { ia_seeded: new Date().toISOString() },
          version: 1,
        },
      }),
    );
}

/**
 * The user once their first sign-in is linked. A read-only route queues the link for the user-activation
 * worker (issue 12, part 8), so it lands shortly after the request, not with it.
 */
export async function linkedUser(firmId: string, userId: string): Promise<UserItem> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const user = await getUser(stackDeps(), firmId, userId);
    if (user?.subject) return user;
    if (Date.now() > deadline) throw new Error(`User ${userId} was never linked`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
