import { join } from 'node:path';
import { FsObjectStore } from '../adapters/local/fs-object-store.js';
import { UrlSigningSecret } from '../adapters/local/presigned-uploads.js';
import { LocalQueue } from '../adapters/local/local-queue.js';
import { LocalSigner } from '../adapters/local/local-signer.js';
import type { SignerQuota } from '../adapters/local/signer-quota.js';
import { ThrottledSigner } from '../adapters/throttled-signer.js';
import { systemClock } from '../ports/clock.js';
import type { Queue } from '../ports/queue.js';
import { createDocumentClient } from '../store/dynamo.js';
import { tableName } from '../store/tables.js';
import { ENV, intEnv, signerLimits } from './config.js';
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
}): Deps {
  const paths = localPaths(options.dataDir);
  const signer = new LocalSigner(paths.signingKey, {
    latencyMs: intEnv(ENV.signerLatencyMs, 0),
    ...(options.signerQuota ? { quota: options.signerQuota } : {}),
  });
  return {
    db: createDocumentClient(options.dynamoEndpoint),
    tables: LOCAL_TABLES,
    signer: new ThrottledSigner(signer, signerLimits()),
    objects: new FsObjectStore(paths.objects, {
      baseUrl: options.baseUrl,
      secret: new UrlSigningSecret(paths.urlSigningSecret),
    }),
    queue: options.queue ?? new LocalQueue(),
    clock: systemClock,
    oidc: {
      issuer: DEV_ISSUER,
      audience: DEV_AUDIENCE,
      jwksUrl: `${options.baseUrl}/dev-issuer/jwks.json`,
      firmClaim: DEV_FIRM_CLAIM,
    },
  };
}
