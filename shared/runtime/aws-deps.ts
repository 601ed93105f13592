import type { KMSClient } from '@aws-sdk/client-kms';
import { KmsNoteSigner } from '../adapters/aws/kms-note-signer.js';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { emfSignMetrics } from '../adapters/aws/sign-metrics.js';
import { S3ObjectStore } from '../adapters/aws/s3-object-store.js';
import { SqsQueue } from '../adapters/aws/sqs-queue.js';
import { ThrottledSigner } from '../adapters/throttled-signer.js';
import { systemClock } from '../ports/clock.js';
import { noteSignerOf, type NoteSigner } from '../ports/note-signer.js';
import type { Signer } from '../ports/signer.js';
import { createDocumentClient } from '../store/dynamo.js';
import { once } from '../once.js';
import { ENV, optionalEnv, QUEUE_URL_ENV, requireEnv, signerLimits } from './config.js';
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
 * KMS behind the Sign throttling wrapper, with Sign metrics (docs/architecture.md §5); a function that may only read
 * the public key (GLS_BUNDLE_SIGN "false") gets the bare signer, so its bundle carries none of it.
 */
function withSignLimits(kms: Signer): Signer {
  return process.env.GLS_BUNDLE_SIGN === 'false'
    ? kms
    : new ThrottledSigner(kms, { ...signerLimits(), metrics: emfSignMetrics() });
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
  let objects: S3ObjectStore | undefined;
  let queue: SqsQueue | undefined;
  let oidc: Deps['oidc'] | undefined;
  return {
    db: createDocumentClient(process.env[ENV.dynamoEndpoint]),
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
                sharedClient(async () => new (await import('@aws-sdk/client-kms')).KMSClient({})),
                id,
              ),
            ),
          );
    },
    get noteSigner() {
      // Only the log's integrator is granted the checkpoint key (lib/ledger.ts); the variable is set for it alone.
      return process.env.GLS_BUNDLE_KMS === 'false' || !process.env[ENV.checkpointKeyId]
        ? undefined
        : (noteSigner ??= noteSignerOf(
            withSignLimits(
              new KmsNoteSigner(
                sharedClient(async () => new (await import('@aws-sdk/client-kms')).KMSClient({})),
                requireEnv(ENV.checkpointKeyId),
              ),
            ),
          ));
    },
    get objects() {
      return process.env.GLS_BUNDLE_S3 === 'false'
        ? notBundled('S3')
        : (objects ??= new S3ObjectStore(async () => new (await import('@aws-sdk/client-s3')).S3Client({}), {
            get immutable() {
              return requireEnv(ENV.immutableBucket);
            },
            get uploads() {
              return requireEnv(ENV.uploadsBucket);
            },
            get certificates() {
              return requireEnv(ENV.certificatesBucket);
            },
          }));
    },
    get queue() {
      return process.env.GLS_BUNDLE_SQS === 'false'
        ? notBundled('SQS')
        : (queue ??= new SqsQueue(
            async () => new (await import('@aws-sdk/client-sqs')).SQSClient({}),
            (name) => requireEnv(QUEUE_URL_ENV[name]),
          ));
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
