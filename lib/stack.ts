import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ROUTE_AREAS } from '../shared/routes.js';
import { ENV } from '../shared/runtime/config.js';
import type { RouteDef } from '../shared/routes/route.js';
import * as witnessRoutes from '../shared/routes/witnesses.js';
import { WORKERS, type WorkerDef } from '../shared/workers/table.js';
import { Api } from './api.js';
import { Auth, type OidcSettings } from './auth.js';
import { Console } from './console.js';
import { Data } from './data.js';
import { LedgerSigning } from './ledger.js';
import { Monitoring } from './monitoring.js';
import { WorkQueues } from './queues.js';
import { stageSettings } from './stage.js';
import { Workers } from './workers.js';

export interface GovernanceLedgerStackProps extends StackProps {
  stage: string;
  /** Object Lock retention of the immutable bucket, in days. @default 2557 (7 years) */
  retentionDays?: number;
  /** Each table's first N indexes only (`-c indexLimit`, upgrading a stage; lib/data.ts). @default all */
  indexLimit?: number;
  /** Trust this OIDC issuer instead of creating a Cognito user pool. */
  oidc?: OidcSettings;
  /** The route table by area, each deployed as a nested stack. @default ROUTE_AREAS of shared/routes.ts */
  routeAreas?: Readonly<Record<string, readonly RouteDef[]>>;
  /** @default WORKERS of shared/workers/table.ts */
  workers?: readonly WorkerDef[];
  /**
   * Public base URL printed on certificates (verification page and QR code), e.g. a custom domain.
   * @default the HTTP API's own URL
   */
  publicBaseUrl?: string;
  /** Subscribe this e-mail address to the alarm topic. */
  alarmEmail?: string;
  /** Signing keys of the stage (`-c signingKeys`, lib/ledger.ts). @default 1 */
  signingKeys?: number;
  /** Oldest keys that may no longer Sign (`-c retiredSigningKeys`). @default 0 */
  retiredSigningKeys?: number;
  /**
   * Platform-wide witnesses of every firm's log (`-c platformWitnesses`, PLATFORM_WITNESSES: `<vkey> <url>`
   * entries separated by commas), set on the log-witness worker and the witness routes. @default none
   */
  platformWitnesses?: string;
}

/** The whole service for one stage. It only composes the areas; each area owns its resources and grants. */
export class GovernanceLedgerStack extends Stack {
  readonly data: Data;
  readonly signing: LedgerSigning;
  readonly auth: Auth;
  readonly queues: WorkQueues;
  readonly workers: Workers;
  readonly api: Api;
  readonly monitoring: Monitoring;
  /** The web console (CloudFront + S3, Cognito hosted UI); absent with an external OIDC issuer. */
  readonly console?: Console;

  constructor(scope: Construct, id: string, props: GovernanceLedgerStackProps) {
    const {
      stage: stageName,
      retentionDays,
      indexLimit,
      oidc,
      routeAreas = ROUTE_AREAS,
      workers = WORKERS,
      publicBaseUrl,
      alarmEmail,
      signingKeys,
      retiredSigningKeys,
      platformWitnesses,
      ...stackProps
    } = props;
    const stage = stageSettings(stageName);
    super(scope, id, {
      ...stackProps,
      terminationProtection: stackProps.terminationProtection ?? stage.production,
      // Stack-level tags, which CloudFormation propagates to every resource.
      tags: { service: 'governance-ledger', stage: stage.name, ...stackProps.tags },
    });

    this.data = new Data(this, 'Data', { stage, retentionDays, indexLimit });
    // ledgerctl signing-key rotate --stage writes each key-history version to this bucket (docs/deploy.md).
    new CfnOutput(this, 'ImmutableBucketName', {
      description: 'The immutable (Object Lock) bucket: ledger records and signing-key history versions',
      value: this.data.immutableBucket.bucketName,
    });
    this.signing = new LedgerSigning(this, 'Ledger', {
      stage,
      signingKeys,
      retiredSigningKeys,
    });
    this.auth = new Auth(this, 'Auth', { stage, external: oidc });
    // Before any function binds the verifier: the console's app client joins the accepted audiences.
    if (!oidc)
      this.console = new Console(this, 'Console', {
        stage,
        auth: this.auth,
        documents: this.data.immutableBucket,
      });
    this.queues = new WorkQueues(this, 'Queues', { workers });
    const resources = { data: this.data, signing: this.signing, queues: this.queues, auth: this.auth };
    this.workers = new Workers(this, 'Workers', { stage, workers, resources });
    this.api = new Api(this, 'Api', { stage, routeAreas, resources });
    for (const worker of workers) {
      if (worker.needsPublicBaseUrl)
        this.workers.functions
          .get(worker.name)!
          .addEnvironment(ENV.publicBaseUrl, publicBaseUrl ?? this.api.url);
    }
    if (platformWitnesses) {
      const readers = new Set(['log-witness', ...Object.values(witnessRoutes).map((r) => r.operationId)]);
      for (const [name, fn] of [...this.api.functions, ...this.workers.functions])
        if (readers.has(name)) fn.addEnvironment(ENV.platformWitnesses, platformWitnesses);
    }
    this.console?.deploy({ apiUrl: publicBaseUrl ?? this.api.url, httpApi: this.api.httpApi });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      httpApi: this.api.httpApi,
      functions: new Map([...this.api.functions, ...this.workers.functions]),
      queues: this.queues,
      alarmEmail,
    });
  }
}
