import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { KmsSigner } from '../adapters/aws/kms-signer.js';
import { S3ObjectStore } from '../adapters/aws/s3-object-store.js';
import { SqsQueue } from '../adapters/aws/sqs-queue.js';
import { systemClock } from '../ports/clock.js';
import { createDocumentClient } from '../store/dynamo.js';
import { ENV, optionalEnv, QUEUE_URL_ENV, requireEnv } from './config.js';
import { registerDepsFactory, type Deps } from './deps.js';

/**
 * The AWS composition root. Clients are created on first use, so a function only pays for (and only needs
 * configuration of) the services its code touches; the CDK stack sets exactly the variables it grants.
 */
export function createAwsDeps(): Deps {
  let signer: KmsSigner | undefined;
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
      return (signer ??= new KmsSigner(new KMSClient({}), requireEnv(ENV.signingKeyId)));
    },
    get objects() {
      return (objects ??= new S3ObjectStore(new S3Client({}), {
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
      return (queue ??= new SqsQueue(new SQSClient({}), (name) => requireEnv(QUEUE_URL_ENV[name])));
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
