import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { FsObjectStore } from '../adapters/local/fs-object-store.js';
import { UrlSigningSecret } from '../adapters/local/presigned-uploads.js';
import { LocalQueue } from '../adapters/local/local-queue.js';
import { LocalNoteSigner } from '../adapters/local/local-note-signer.js';
import { LocalSigner } from '../adapters/local/local-signer.js';
import type { SignerQuota } from '../adapters/local/signer-quota.js';
import { meteredDb, type DynamoMeter } from '../adapters/local/dynamo-meter.js';
import { isThrottling, ThrottledSigner } from '../adapters/throttled-signer.js';
import {
  BoundedObjectStore,
  BoundedQueue,
  BoundedSigner,
  boundedDb,
} from '../adapters/bounded-dependencies.js';
import type { FaultSwitch } from '../adapters/local/fault-switch.js';
import {
  FaultyObjectStore,
  FaultyQueue,
  FaultySigner,
  underFault,
} from '../adapters/local/faulty-adapters.js';
import { systemClock } from '../ports/clock.js';
import { noteSignerOf } from '../ports/note-signer.js';
import type { Queue } from '../ports/queue.js';
import type { Signer } from '../ports/signer.js';
import { createDocumentClient } from '../store/dynamo.js';
import { tableName } from '../store/tables.js';
import {
  dependencyBudgets,
  ENV,
  intEnv,
  sdkClientBudget,
  signerLimits,
  type DependencyBudgets,
} from './config.js';
import type { Deps } from './deps.js';

export const LOCAL_TABLES = {
  main: tableName('local', 'main'),
  ledger: tableName('local', 'ledger'),
} as const;
export const DEV_ISSUER = 'urn:governance-ledger:local-dev-issuer';
export const DEV_AUDIENCE = 'governance-ledger-api';
export const DEV_FIRM_CLAIM = 'custom:firm_id';

/** Files of the embedded stack under DATA_DIR. */
export function localPaths(dataDir: string) {
  return {
    dynamodb: join(dataDir, 'dynamodb'),
    objects: join(dataDir, 'objects'),
    signingKey: join(dataDir, 'keys', 'ledger-signing-key.pem'),
    /** Keys introduced by a rotation (issue 15): `ledger-signing-key-<16 hex of the fingerprint>.pem`. */
    rotatedSigningKey: (fingerprintPrefix: string) =>
      join(dataDir, 'keys', `ledger-signing-key-${fingerprintPrefix}.pem`),
    /** The Ed25519 checkpoint key (issue 31), PKCS#8 PEM, created once. */
    checkpointKey: join(dataDir, 'keys', 'checkpoint-ed25519-key.pem'),
    devIssuerKey: join(dataDir, 'keys', 'dev-issuer.jwk.json'),
    /** HMAC secret of the local presigned object URLs. */
    urlSigningSecret: join(dataDir, 'keys', 'presigned-url-secret.hex'),
    stackFile: join(dataDir, 'local-stack.json'),
    dynamoPidFile: join(dataDir, 'dynamodb.pid'),
  };
}

/** What a running embedded stack publishes in DATA_DIR/local-stack.json for ledgerctl, benches and tests. */
export interface LocalStackInfo {
  baseUrl: string;
  dynamoEndpoint: string;
  pid: number;
}

/**
 * The local composition root: DynamoDB Local, filesystem objects, file-backed P-256 key behind the same signer
 * wrapper as in AWS, in-process queue (or, inside an instance, one that forwards to the server's queue).
 * The local signer takes SIGNER_LATENCY_MS per call and draws on `signerQuota` (the stack's shared
 * SIGNER_RATE_LIMIT and Sign counters); without a quota (ledgerctl, tests reading the stack) it is unlimited.
 */
export function createLocalDeps(options: {
  dataDir: string;
  dynamoEndpoint: string;
  baseUrl: string;
  queue?: Queue;
  signerQuota?: SignerQuota;
  /** Counts the DynamoDB reads (LOCAL_DYNAMO_METRICS, shared/adapters/local/dynamo-meter.ts). */
  dynamoMeter?: DynamoMeter;
  /** The stack's fault switch (POST /__local/faults, shared/adapters/local/fault-switch.ts). */
  faults?: FaultSwitch;
  /** The calls' budgets: a request's (dependencyBudgets, the default) or an operator command's (operatorBudgets). */
  budgets?: DependencyBudgets;
}): Deps {
  const paths = localPaths(options.dataDir);
  const signerOptions = {
    latencyMs: intEnv(ENV.signerLatencyMs, 0),
    ...(options.signerQuota ? { quota: options.signerQuota } : {}),
  };
  // The same budgets as in AWS (issue 32): the DynamoDB client's timeouts and retries, every call's budget.
  const budgets = options.budgets ?? dependencyBudgets();
  const faults = options.faults;
  // Both keys (the ledger's and the log's checkpoint key) are KMS keys in AWS: the same budget, fault and limits.
  const signerOf = (local: Signer) =>
    new ThrottledSigner(
      new BoundedSigner(faults ? new FaultySigner(local, faults) : local, budgets, isThrottling),
      signerLimits(),
    );
  const signer = signerOf(new LocalSigner(paths.signingKey, signerOptions));
  const signers = new Map<string, Signer>([[signer.keyId, signer]]);
  const documents = createDocumentClient(
    options.dynamoEndpoint,
    sdkClientBudget(budgets, { retryTimedOut: false }),
  );
  const objects = new FsObjectStore(paths.objects, {
    baseUrl: options.baseUrl,
    secret: new UrlSigningSecret(paths.urlSigningSecret),
  });
  const queue = options.queue ?? new LocalQueue();
  return {
    db: boundedDb(options.dynamoMeter ? meteredDb(documents, options.dynamoMeter) : documents, budgets),
    tables: LOCAL_TABLES,
    signer,
    signerFor(keyId) {
      let found = signers.get(keyId);
      if (!found) {
        const prefix = /^local:([0-9a-f]{16})$/.exec(keyId)?.[1];
        if (!prefix) throw new Error(`Not a local signing key id: ${keyId}`);
        const file = paths.rotatedSigningKey(prefix);
        found = signerOf(new LocalSigner(file, { ...signerOptions, create: false }));
        signers.set(keyId, found);
      }
      return found;
    },
    noteSigner: noteSignerOf(signerOf(new LocalNoteSigner(paths.checkpointKey, signerOptions))),
    objects: new BoundedObjectStore(faults ? new FaultyObjectStore(objects, faults) : objects, budgets),
    queue: new BoundedQueue(faults ? new FaultyQueue(queue, faults) : queue, budgets),
    clock: systemClock,
    // The in-process queue has no one to ask but the fault switch (GET /health, issue 32).
    probes: {
      queue: () => (faults ? underFault(faults, 'queue', async () => undefined) : Promise.resolve()),
    },
    oidc: {
      issuer: DEV_ISSUER,
      audience: DEV_AUDIENCE,
      jwksUrl: `${options.baseUrl}/dev-issuer/jwks.json`,
      firmClaim: DEV_FIRM_CLAIM,
    },
  };
}

/**
 * A new P-256 key for a rotation of the embedded stack's signing key (`ledgerctl signing-key rotate`): written
 * once (mode 0600) as `DATA_DIR/keys/ledger-signing-key-<16 hex of its fingerprint>.pem`; returns its key id.
 */
export function createLocalSigningKey(dataDir: string): { keyId: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const prefix = createHash('sha256').update(spki).digest('hex').slice(0, 16);
  const file = localPaths(dataDir).rotatedSigningKey(prefix);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600, flag: 'wx' });
  return { keyId: `local:${prefix}` };
}
