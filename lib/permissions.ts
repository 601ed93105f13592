import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { takesIdempotencyKey } from '../shared/routes/route.js';
import { routeFunctionPermissions, type Permissions, type RouteDef } from '../shared/routes/route.js';
import { RECORD_SUBSCRIBERS } from '../shared/workers/record-subscribers.js';
import type { Auth } from './auth.js';
import type { Data } from './data.js';
import type { LedgerSigning } from './ledger.js';
import type { WorkQueues } from './queues.js';

/** Everything a function can be granted access to. */
export interface ServiceResources {
  data: Data;
  signing: LedgerSigning;
  queues: WorkQueues;
  auth: Auth;
}

/**
 * Turns a route's or worker's declared Permissions into least-privilege grants and the matching environment
 * variables. This is the only place the mapping lives; the grants themselves belong to the constructs that
 * own the resources.
 */
export function applyPermissions(
  fn: LambdaFunction,
  permissions: Permissions,
  resources: ServiceResources,
): void {
  const { data, signing, queues } = resources;
  data.acknowledgeWildcards(fn);
  // An appender reads the firm's webhook endpoints once per committed batch (which records go to the webhooks
  // queue: shared/ledger-writer/dispatch.ts), so appending implies main-table reads.
  const appends = permissions.ledger === 'append' || permissions.ledger === 'restore';
  if (permissions.main === 'read' || (appends && permissions.main === undefined)) data.grantMainRead(fn);
  if (permissions.main === 'write') data.grantMainReadWrite(fn);
  if (permissions.ledger === 'read') data.grantLedgerRead(fn);
  if (permissions.ledger === 'archive') data.grantLedgerArchive(fn);
  // IAM cannot tell a PutItem that creates a row from one that replaces it: restore and append get the same
  // actions, and only restore's code writes a row without the attribute_not_exists condition.
  if (appends) data.grantLedgerAppend(fn);
  if (permissions.immutable === 'read') data.grantImmutableRead(fn);
  if (permissions.immutable === 'write') data.grantImmutableWrite(fn);
  if (permissions.uploads === 'presign') data.grantUploadsPresign(fn);
  if (permissions.uploads === 'read') data.grantUploadsRead(fn);
  if (permissions.uploads === 'write') data.grantUploadsWrite(fn);
  if (permissions.certificates === 'read') data.grantCertificatesRead(fn);
  if (permissions.certificates === 'write') data.grantCertificatesWrite(fn);
  if (permissions.activateUsers) {
    data.grantUserActivation(fn);
    resources.auth.bindVerifier(fn);
  }
  if (permissions.signCheckpoints) signing.grantSignCheckpoints(fn);
  if (permissions.sign) signing.grantSign(fn);
  else if (permissions.publicKey) signing.grantPublicKey(fn);
  // Whoever archives a record dispatches it to the record subscribers' queues (the worker table).
  const dispatches = permissions.ledger !== undefined && permissions.ledger !== 'read';
  // An appender commits batches and tells the log-checkpoint worker (shared/ledger-writer/log-trigger.ts).
  const sendTo = new Set([
    ...(permissions.queues ?? []),
    ...(dispatches ? RECORD_SUBSCRIBERS.map((subscriber) => subscriber.queue) : []),
    ...(appends ? (['log-checkpoint'] as const) : []),
  ]);
  for (const queue of sendTo) queues.grantSend(fn, queue);
}

/**
 * A route's grants: routeFunctionPermissions (its declared Permissions plus what authenticating a caller
 * takes: main-table reads, and sending a first sign-in to the user-activation worker, the one function granted
 * the activation writes), and the token verifier's settings.
 */
export function applyRoutePermissions(
  fn: LambdaFunction,
  route: RouteDef,
  resources: ServiceResources,
): void {
  applyPermissions(fn, routeFunctionPermissions(route), resources);
  if (route.auth.kind !== 'public') resources.auth.bindVerifier(fn);
  // Every POST and PATCH keeps its Idempotency-Key items, also when it writes nothing else of the main table.
  if (takesIdempotencyKey(route) && route.permissions.main !== 'write')
    resources.data.grantIdempotencyKeys(fn);
}
