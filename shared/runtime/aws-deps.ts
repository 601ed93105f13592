import type { KMSClient } from '@aws-sdk/client-kms';
import { KmsNoteSigner } from '../adapters/aws/kms-note-signer.js';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { emfSignMetrics } from '../adapters/aws/sign-metrics.js';
import { S3ObjectStore } from '../adapters/aws/s3-object-store.js';
import { SqsQueue } from '../adapters/aws/sqs-queue.js';
import {
  BoundedObjectStore,
  BoundedQueue,
  BoundedSigner,
  boundedDb,
} from '../adapters/bounded-dependencies.js';
import { isThrottling, ThrottledSigner } from '../adapters/throttled-signer.js';
import type { ObjectStore } from '../ports/object-store.js';
import type { Queue } from '../ports/queue.js';
import { systemClock } from '../ports/clock.js';
import { noteSignerOf, type NoteSigner } from '../ports/note-signer.js';
import type { Signer } from '../ports/signer.js';
import { createDocumentClient } from '../store/dynamo.js';
import { once } from '../once.js';
import {
  dependencyBudgets,
  ENV,
  optionalEnv,
  QUEUE_URL_ENV,
  requireEnv,
  sdkClientBudget,
  signerLimits,
} from './config.js';
import { registerDepsFactory, type Deps } from './deps.js';

/**
 * Which SDK clients this bundle contains. The CDK stack builds each function with esbuild `define`s derived
 * from its declared Permissions (lib/bundling.ts, bundleDefines), e.g. `process.env.GLS_BUNDLE_S3` → "false"
 * for a function granted no bucket; the minifier folds the comparison to a constant, the client branch
 * becomes dead code and tree-shaking drops the client (the SDK packages are side-effect free). The
 * comparisons stay inline, as conditional expressions: esbuild decides what is used before minifying, and
 * folds a constant condition of `?:` at that point but neither `if (...) return` nor a value read from an object.
 * Unbundled (tests, embedded stack) the variables are unset and every client is present.
 */
function notBundled(client: string): never {
  throw new Error(
    `This function was built without the ${client} client: its declared permissions grant no ${client} access`,
  );
}

/**
 * KMS within its time budget (issue 32) behind the Sign throttling wrapper, with Sign metrics (docs/architecture.md
 * §5); a function that may only read the public key (GLS_BUNDLE_SIGN "false") gets the bounded signer without the
 * throttling wrapper, so its bundle carries none of it.
 */
function withSignLimits(kms: Signer): Signer {
  const bounded = new BoundedSigner(kms, dependencyBudgets(), isThrottling);
  return process.env.GLS_BUNDLE_SIGN === 'false'
    ? bounded
    : new ThrottledSigner(bounded, { ...signerLimits(), metrics: emfSignMetrics() });
}

/**
 * The AWS composition root. Clients are created on first use, and their SDK modules loaded then too
 * (shared/adapters/aws/lazy-sdk.ts), so a function only pays for (and only needs configuration of) the
 * services its code touches; the CDK stack sets exactly the variables it grants. DynamoDB too: the document
 * client (shared/store/dynamo.ts) loads its SDK with the first command, so /health, the signing key and the
 * OpenAPI document never load it.
 */
export function createAwsDeps(): Deps {
  // One KMS client and one signer per key. KmsSigner and the SDK import appear only inside signerFor's live
  // branch, so a bundle without KMS (GLS_BUNDLE_KMS "false") reaches neither.
  const signers = new Map<string, Signer>();
  const cachedSigner = (keyId: string, create: (keyId: string) => Signer): Signer => {
    let found = signers.get(keyId);
    if (!found) signers.set(keyId, (found = create(keyId)));
    return found;
  };
  let kmsClient: (() => Promise<KMSClient>) | undefined;
  const sharedClient = (load: () => Promise<KMSClient>) => (kmsClient ??= once(load));
  let noteSigner: NoteSigner | undefined;
  let objects: ObjectStore | undefined;
  let queue: Queue | undefined;
  let oidc: Deps['oidc'] | undefined;
  // Every client's attempts, timeouts and retries, and every call's budget, from one place (issue 32).
  const budgets = dependencyBudgets();
  const clientBudget = sdkClientBudget(budgets);
  const sqsQueue = () =>
    new SqsQueue(
      async () => new (await import('@aws-sdk/client-sqs')).SQSClient(clientBudget),
      (name) => requireEnv(QUEUE_URL_ENV[name]),
    );
  return {
    db: boundedDb(
      createDocumentClient(
        process.env[ENV.dynamoEndpoint],
        sdkClientBudget(budgets, { retryTimedOut: false }),
      ),
      budgets,
    ),
    tables: {
      get main() {
        return requireEnv(ENV.mainTable);
      },
      get ledger() {
        return requireEnv(ENV.ledgerTable);
      },
    },
    get signer() {
      return process.env.GLS_BUNDLE_KMS === 'false'
        ? notBundled('KMS')
        : this.signerFor(requireEnv(ENV.signingKeyId));
    },
    signerFor(keyId) {
      return process.env.GLS_BUNDLE_KMS === 'false'
        ? notBundled('KMS')
        : cachedSigner(keyId, (id) =>
            withSignLimits(
              new KmsSigner(
                sharedClient(async () => new (await import('@aws-sdk/client-kms')).KMSClient(clientBudget)),
                id,
              ),
            ),
          );
    },
    get noteSigner() {
      // Only the log's integrator is granted the checkpoint key (lib/ledger.ts); the variable is set for it alone.
      return process.env.GLS_BUNDLE_NOTE_SIGN === 'false' || !process.env[ENV.checkpointKeyId]
        ? undefined
        : (noteSigner ??= noteSignerOf(
            withSignLimits(
              new KmsNoteSigner(
                sharedClient(async () => new (await import('@aws-sdk/client-kms')).KMSClient(clientBudget)),
                requireEnv(ENV.checkpointKeyId),
              ),
            ),
          ));
    },
    get objects() {
      return process.env.GLS_BUNDLE_S3 === 'false'
        ? notBundled('S3')
        : (objects ??= new BoundedObjectStore(
            new S3ObjectStore(async () => new (await import('@aws-sdk/client-s3')).S3Client(clientBudget), {
              get immutable() {
                return requireEnv(ENV.immutableBucket);
              },
              get uploads() {
                return requireEnv(ENV.uploadsBucket);
              },
              get certificates() {
                return requireEnv(ENV.certificatesBucket);
              },
            }),
            budgets,
          ));
    },
    get queue() {
      return process.env.GLS_BUNDLE_SQS === 'false'
        ? notBundled('SQS')
        : (queue ??= new BoundedQueue(sqsQueue(), budgets));
    },
    // GET /health's own question (issue 32): KMS's public key, uncached. The queue is not asked in AWS: the health
    // route writes nothing, and sending is the only SQS grant there is; its alarm watches it (lib/monitoring.ts).
    probes: {
      signer: () =>
        process.env.GLS_BUNDLE_KMS === 'false'
          ? notBundled('KMS')
          : new KmsSigner(
              sharedClient(async () => new (await import('@aws-sdk/client-kms')).KMSClient(clientBudget)),
              requireEnv(ENV.signingKeyId),
            ).probe(),
    },
    clock: systemClock,
    get oidc() {
      return (oidc ??= {
        issuer: requireEnv(ENV.oidcIssuer),
        audience: requireEnv(ENV.oidcAudience),
        jwksUrl: requireEnv(ENV.oidcJwksUrl),
        firmClaim: optionalEnv(ENV.oidcFirmClaim, 'custom:firm_id'),
      });
    },
  };
}

registerDepsFactory(createAwsDeps);
