import { CfnOutput, Stack, Token, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ROUTE_AREAS } from '../shared/routes.js';
import { ENV } from '../shared/runtime/config.js';
import type { RouteDef } from '../shared/routes/route.js';
import * as witnessRoutes from '../shared/routes/witnesses.js';
import * as certificateRoutes from '../shared/routes/certificates.js';
import { WORKERS, type WorkerDef } from '../shared/workers/table.js';
import { Api } from './api.js';
import { Auth, type OidcSettings } from './auth.js';
import { Console } from './console.js';
import { Data, ImmutableReplicaStack, immutableReplicaBucketName } from './data.js';
import { LedgerSigning, SigningKeyReplicaStack } from './ledger.js';
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
   * Region of the disaster-recovery replica (`-c replicaRegion=…`): the immutable bucket replicated to a bucket
   * with Object Lock there (stack `<id>-ImmutableReplica`, deployed first) and the multi-Region signing keys
   * replicated there (stack `<id>-SigningKeyReplica`, deployed after). Needs an explicit account and region.
   * @default the `replicaRegion` context value, else no replica
   */
  replicaRegion?: string;
  /** Keys numbered from this one on are multi-Region (`-c multiRegionKeysFrom=N`, lib/ledger.ts). @default 1 with a replica region */
  multiRegionKeysFrom?: number;
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
      replicaRegion = contextValue(scope, 'replicaRegion'),
      multiRegionKeysFrom = optionalNumber(contextValue(scope, 'multiRegionKeysFrom')),
      platformWitnesses,
      ...stackProps
    } = props;
    const stage = stageSettings(stageName);
    super(scope, id, {
      ...stackProps,
      terminationProtection: stackProps.terminationProtection ?? stage.production,
      // Stack-level tags, which CloudFormation propagates to every resource.
      tags: { service: 'governance-ledger', stage: stage.name, ...stackProps.tags },
      ...(replicaRegion ? { crossRegionReferences: true } : {}),
    });

    let replicaBucket: ImmutableReplicaStack | undefined;
    if (replicaRegion) {
      if (Token.isUnresolved(this.account) || Token.isUnresolved(this.region))
        throw new Error('replicaRegion needs the stack deployed to an explicit account and region (env)');
      if (replicaRegion === this.region) throw new Error("replicaRegion must differ from the stack's region");
      replicaBucket = new ImmutableReplicaStack(scope, `${id}-ImmutableReplica`, {
        env: { account: this.account, region: replicaRegion },
        stage,
        retentionDays,
        terminationProtection: stage.production,
        tags: { service: 'governance-ledger', stage: stage.name },
      });
    }
    this.data = new Data(this, 'Data', {
      stage,
      retentionDays,
      indexLimit,
      ...(replicaRegion
        ? {
            replica: {
              bucketName: immutableReplicaBucketName(stage.name, this.account),
              region: replicaRegion,
            },
          }
        : {}),
    });
    if (replicaBucket) this.addStackDependency(replicaBucket, 'replication needs its destination bucket');
    // ledgerctl signing-key rotate --stage writes each key-history version to this bucket (docs/deploy.md).
    new CfnOutput(this, 'ImmutableBucketName', {
      description: 'The immutable (Object Lock) bucket: ledger records and signing-key history versions',
      value: this.data.immutableBucket.bucketName,
    });
    this.signing = new LedgerSigning(this, 'Ledger', {
      stage,
      signingKeys,
      retiredSigningKeys,
      multiRegionKeysFrom: multiRegionKeysFrom ?? (replicaRegion ? 1 : undefined),
    });
    if (replicaRegion) {
      const from = multiRegionKeysFrom ?? 1;
      const primaries = this.signing.keys
        .map((key, i) => ({ number: i + 1, key }))
        .filter(({ number }) => number >= from);
      if (primaries.length > 0)
        new SigningKeyReplicaStack(scope, `${id}-SigningKeyReplica`, {
          env: { account: this.account, region: replicaRegion },
          stage,
          primaries,
          crossRegionReferences: true,
          terminationProtection: stage.production,
          tags: { service: 'governance-ledger', stage: stage.name },
        }).addStackDependency(this, 'replicas refer to the primary keys');
    }
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
    // The API's URL (its HttpApi's default stage) depends on no route function: route functions may take it too.
    for (const route of Object.values(routeAreas).flat()) {
      if (route.needsPublicBaseUrl)
        this.api.functions
          .get(route.operationId)!
          .addEnvironment(ENV.publicBaseUrl, publicBaseUrl ?? this.api.url);
    }
    if (platformWitnesses) {
      // The witness routes list them; the public certificate check names those whose cosignature verifies.
      const readers = new Set([
        'log-witness',
        ...Object.values(witnessRoutes).map((r) => r.operationId),
        certificateRoutes.verifyCertificate.operationId,
        certificateRoutes.verifyCertificatePage.operationId,
      ]);
      for (const [name, fn] of [...this.api.functions, ...this.workers.functions])
        if (readers.has(name)) fn.addEnvironment(ENV.platformWitnesses, platformWitnesses);
    }
    this.console?.deploy({ apiUrl: publicBaseUrl ?? this.api.url, httpApi: this.api.httpApi });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage,
      httpApi: this.api.httpApi,
      accessLogs: this.api.accessLogs,
      routeAreas,
      functions: new Map([...this.api.functions, ...this.workers.functions]),
      queues: this.queues,
      streamFailureQueues: this.workers.streamFailureQueues,
      alarmEmail,
    });
  }
}

/** A context value given with `-c key=value` (bin/app.ts passes the others as props). */
function contextValue(scope: Construct, key: string): string | undefined {
  const value: unknown = scope.node.tryGetContext(key);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

function optionalNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`multiRegionKeysFrom must be a positive integer, got ${text}`);
  return value;
}
