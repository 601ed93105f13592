import { ArnFormat, Duration, RemovalPolicy, Stack, Token, type StackProps } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import {
  AttributeType,
  BillingMode,
  ProjectionType,
  StreamViewType,
  Table,
  TableEncryption,
} from 'aws-cdk-lib/aws-dynamodb';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { AnyPrincipal, Effect, Grant, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  ObjectLockRetention,
  ReplicationTimeValue,
  type BucketProps,
} from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ENV } from '../shared/runtime/config.js';
import { IDEMPOTENCY_LEADING_KEYS } from '../shared/store/tables.js';
import { TABLES, tableName, type TableDefinition } from '../shared/store/tables.js';
import { acknowledge, wildcardUnder } from './nag.js';
import type { StageSettings } from './stage.js';

/** Seven years (and two leap days): the record-keeping period regulated advice firms are held to. */
export const DEFAULT_RETENTION_DAYS = 2557;

/**
 * What a user's first sign-in writes (activateUser in shared/store/user-store.ts): activatedAt and subject on
 * the user item, and a new subject index item. IAM limits each write to these attributes.
 */
const USER_ACTIVATION_ATTRIBUTES = ['pk', 'sk', 'activatedAt', 'subject'];
const SUBJECT_INDEX_ATTRIBUTES = ['pk', 'sk', 'userId'];

export interface DataProps {
  stage: StageSettings;
  /** Object Lock (COMPLIANCE) default retention of the immutable bucket. @default 2557 (7 years) */
  retentionDays?: number;
  /**
   * Create only each table's first N indexes, in the order of shared/store/tables.ts (`-c indexLimit=N`).
   * CloudFormation adds at most one global secondary index per table per stack update, so a stage deployed
   * before newer indexes existed takes them one deploy at a time (docs/deploy.md, "Upgrading a stage").
   * @default every index
   */
  indexLimit?: number;
  /**
   * Replicate the immutable bucket to this bucket of another region (`-c replicaRegion=…`, ImmutableReplicaStack):
   * every new object version, with its Object Lock retention; and copy the tables' backups to that region's
   * backup vault (TABLE_BACKUPS). @default no replica
   */
  replica?: { bucketName: string; region: string };
}

/**
 * The service's state: the two DynamoDB tables described in shared/store/tables.ts and the S3 buckets.
 * Functions get access only through the grant methods below, each of which also sets the environment
 * variable the runtime reads, so a grant and its configuration cannot drift apart.
 */
export class Data extends Construct {
  readonly mainTable: Table;
  readonly ledgerTable: Table;
  /** Object Lock in COMPLIANCE mode: nobody, not even the account root, can shorten or lift the retention. */
  readonly immutableBucket: Bucket;
  readonly uploadsBucket: Bucket;
  readonly certificatesBucket: Bucket;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const { stage } = props;
    const retentionDays = props.retentionDays ?? DEFAULT_RETENTION_DAYS;
    if (!Number.isInteger(retentionDays) || retentionDays < 1)
      throw new Error(`retentionDays must be a positive integer, got ${retentionDays}`);

    if (props.indexLimit !== undefined && (!Number.isInteger(props.indexLimit) || props.indexLimit < 1))
      throw new Error(`indexLimit must be a positive integer, got ${props.indexLimit}`);
    this.mainTable = this.table(stage, definition('main'), props.indexLimit);
    this.ledgerTable = this.table(stage, definition('ledger'), props.indexLimit);

    const safe: BucketProps = {
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      // Buckets hold firms' documents: never deleted with the stack, whatever the stage.
      removalPolicy: RemovalPolicy.RETAIN,
    };
    this.immutableBucket = new Bucket(this, 'ImmutableBucket', {
      ...safe,
      versioned: true,
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(retentionDays)),
      ...(props.replica ? replication(this, props.replica) : {}),
    });
    if (props.replica) {
      grantReplication(
        this.node.findChild('ImmutableReplicationRole') as Role,
        this.immutableBucket,
        props.replica.bucketName,
      );
      this.backUpTablesTo(stage, props.replica.region);
    }
    // Object Lock keeps locked versions, but a plain DeleteObject would still hide a record behind a delete
    // marker; deny every delete to every principal as well.
    this.immutableBucket.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
        resources: [this.immutableBucket.arnForObjects('*')],
      }),
    );
    this.uploadsBucket = new Bucket(this, 'UploadsBucket', {
      ...safe,
      versioned: false,
      // A staging area for presigned uploads: a submitted document's lasting copy belongs in the immutable bucket.
      lifecycleRules: [
        { expiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
    });
    this.certificatesBucket = new Bucket(this, 'CertificatesBucket', { ...safe, versioned: true });
    for (const bucket of [this.immutableBucket, this.uploadsBucket, this.certificatesBucket])
      acknowledge(
        bucket,
        'S1',
        'Object-level access is audited with CloudTrail S3 data events (docs/deploy.md, first deployment); server access logs would need a fourth bucket with its own retention and add nothing CloudTrail does not record.',
      );
  }

  grantMainRead(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.mainTable, this.mainTable.tableName);
    return this.mainTable.grantReadData(fn);
  }

  grantMainReadWrite(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.mainTable, this.mainTable.tableName);
    return this.mainTable.grantReadWriteData(fn);
  }

  /**
   * Writes of `Idempotency-Key` items only (claim, keep the answer, release: single-item Put, Update, Delete;
   * shared/store/idempotency-store.ts), for a POST or PATCH route that writes nothing else of the main table.
   * IAM confines them to items whose partition key starts with `IDEMPOTENCY#` (keys.idempotencyKey).
   */
  grantIdempotencyKeys(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.mainTable, this.mainTable.tableName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'],
      resourceArns: [this.mainTable.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [IDEMPOTENCY_LEADING_KEYS] } },
    });
  }

  /**
   * First sign-in stamps activatedAt, links the OIDC subject and indexes the user by subject, in one
   * transaction. IAM cannot demand the put's attribute_not_exists condition (the code sets it), but it does
   * confine both writes to the activation attributes.
   */
  grantUserActivation(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.mainTable, this.mainTable.tableName);
    const onlyAttributes = (attributes: string[]) => ({
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': attributes },
    });
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['dynamodb:UpdateItem'],
      resourceArns: [this.mainTable.tableArn],
      conditions: onlyAttributes(USER_ACTIVATION_ATTRIBUTES),
    }).combine(
      Grant.addToPrincipal({
        grantee: fn,
        actions: ['dynamodb:PutItem'],
        resourceArns: [this.mainTable.tableArn],
        conditions: onlyAttributes(SUBJECT_INDEX_ATTRIBUTES),
      }),
    );
  }

  // The ledger table is append-only: no grant below allows UpdateItem, and DeleteItem is granted only to
  // archive and append, which clear outbox entries once a record's immutable copy is confirmed.

  grantLedgerRead(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.ledgerTable, this.ledgerTable.tableName);
    // Includes the table's indexes (record by id, pending archive).
    return this.ledgerTable.grantReadData(fn);
  }

  grantLedgerArchive(fn: LambdaFunction): Grant {
    return this.grantLedgerRead(fn).combine(this.grantOnLedgerTable(fn, 'dynamodb:DeleteItem'));
  }

  /** Appends are one TransactWriteItems: Put of head, record and outbox entry, with conditions. */
  grantLedgerAppend(fn: LambdaFunction): Grant {
    return this.grantLedgerRead(fn).combine(
      this.grantOnLedgerTable(fn, 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'),
    );
  }

  /** GetObject plus ListBucket, so a missing object answers 404 rather than 403. */
  grantImmutableRead(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.immutableBucket, this.immutableBucket.bucketName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:GetObject'],
      resourceArns: [this.immutableBucket.arnForObjects('*')],
    }).combine(
      Grant.addToPrincipal({
        grantee: fn,
        actions: ['s3:ListBucket'],
        resourceArns: [this.immutableBucket.bucketArn],
      }),
    );
  }

  /**
   * PutObject, plus GetObject to compare bytes when a conditional put answers 412 (an identical re-write).
   * Deliberately not bucket.grantPut: that includes PutObjectRetention and PutObjectLegalHold.
   */
  grantImmutableWrite(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.immutableBucket, this.immutableBucket.bucketName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:PutObject', 's3:GetObject'],
      resourceArns: [this.immutableBucket.arnForObjects('*')],
    });
  }

  /**
   * PutObject on the uploads bucket only, for presigning: a presigned PUT URL carries its signer's
   * permissions, so the function needs the permission it hands out, and nothing else on the bucket.
   */
  grantUploadsPresign(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.uploadsBucket, this.uploadsBucket.bucketName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:PutObject'],
      resourceArns: [this.uploadsBucket.arnForObjects('uploads/*')],
    });
  }

  /** GetObject plus ListBucket, so a missing upload answers 404 rather than 403. */
  grantUploadsRead(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.uploadsBucket, this.uploadsBucket.bucketName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:GetObject'],
      resourceArns: [this.uploadsBucket.arnForObjects('uploads/*')],
    }).combine(
      Grant.addToPrincipal({
        grantee: fn,
        actions: ['s3:ListBucket'],
        resourceArns: [this.uploadsBucket.bucketArn],
      }),
    );
  }

  /** Read, plus DeleteObject to consume an upload once submitted (and PutObject). */
  grantUploadsWrite(fn: LambdaFunction): Grant {
    return this.grantUploadsRead(fn).combine(
      Grant.addToPrincipal({
        grantee: fn,
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resourceArns: [this.uploadsBucket.arnForObjects('uploads/*')],
      }),
    );
  }

  /**
   * GetObject on certificate PDFs: enough to presign a GET (the URL carries its signer's permissions).
   * No ListBucket: a missing PDF is known from the certificate item, never probed in S3.
   */
  grantCertificatesRead(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.certificatesBucket, this.certificatesBucket.bucketName);
    return Grant.addToPrincipal({
      grantee: fn,
      actions: ['s3:GetObject'],
      resourceArns: [this.certificatesBucket.arnForObjects('certificates/*')],
    });
  }

  /** Read, plus PutObject to store a generated PDF (no delete: certificates are never withdrawn). */
  grantCertificatesWrite(fn: LambdaFunction): Grant {
    return this.grantCertificatesRead(fn).combine(
      Grant.addToPrincipal({
        grantee: fn,
        actions: ['s3:PutObject'],
        resourceArns: [this.certificatesBucket.arnForObjects('certificates/*')],
      }),
    );
  }

  /**
   * The cdk-nag IAM5 findings every object or index grant raises (ARN wildcards), acknowledged once for every
   * bucket and table, whichever grant a function got: lib/permissions.ts calls this for each function.
   */
  acknowledgeWildcards(fn: LambdaFunction): void {
    const objects =
      'Object keys are created at run time (per firm, per record); grants name only the actions the function uses, never delete, retention or legal-hold changes, and keys are firm-scoped in code.';
    for (const bucket of [this.immutableBucket, this.uploadsBucket, this.certificatesBucket]) {
      acknowledge(fn, wildcardUnder(fn, bucket, '/*'), objects);
      acknowledge(fn, wildcardUnder(fn, bucket, '/uploads/*'), objects);
    }
    acknowledge(fn, wildcardUnder(fn, this.certificatesBucket, '/certificates/*'), objects);
    for (const table of [this.mainTable, this.ledgerTable])
      acknowledge(
        fn,
        wildcardUnder(fn, table, '/index/*'),
        "Reads the table's own global secondary indexes; tenancy is enforced by the firm partition key in code, which IAM cannot express per request.",
      );
  }

  /**
   * AWS Backup plans for the two tables, each backup copied to the replica region's vault (TABLE_BACKUPS), so a
   * lost region does not take the main table's firms, users and keys with it (docs/operations.md §7).
   */
  private backUpTablesTo(stage: StageSettings, replicaRegion: string): void {
    const vault = new BackupVault(this, 'TableBackupVault', {
      backupVaultName: `gls-${stage.name}-tables`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const replicaVault = BackupVault.fromBackupVaultArn(
      this,
      'TableBackupReplicaVault',
      Stack.of(this).formatArn({
        service: 'backup',
        region: replicaRegion,
        resource: 'backup-vault',
        resourceName: tableBackupReplicaVaultName(stage.name),
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    );
    for (const [name, table] of [
      ['main', this.mainTable],
      ['ledger', this.ledgerTable],
    ] as const) {
      const { schedule, keepDays } = TABLE_BACKUPS[name];
      const plan = new BackupPlan(this, `${name === 'main' ? 'Main' : 'Ledger'}TableBackupPlan`, {
        backupPlanName: `gls-${stage.name}-${name}-table`,
        backupVault: vault,
      });
      plan.addRule(
        new BackupPlanRule({
          ruleName: `${name}-to-${replicaRegion}`,
          scheduleExpression: schedule,
          startWindow: Duration.hours(1),
          completionWindow: Duration.hours(4),
          deleteAfter: Duration.days(keepDays),
          copyActions: [{ destinationBackupVault: replicaVault, deleteAfter: Duration.days(keepDays) }],
        }),
      );
      const selection = plan.addSelection('Table', { resources: [BackupResource.fromDynamoDbTable(table)] });
      acknowledge(
        selection,
        'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
        "AWS Backup's own service-role policy, which AWS maintains as the services it backs up change; the selection limits it to this table.",
      );
    }
  }

  private grantOnLedgerTable(fn: LambdaFunction, ...actions: string[]): Grant {
    // The table itself only: writes never target an index.
    return Grant.addToPrincipal({ grantee: fn, actions, resourceArns: [this.ledgerTable.tableArn] });
  }

  private table(stage: StageSettings, def: TableDefinition, indexLimit = def.indexes.length): Table {
    const id = `${def.name[0]!.toUpperCase()}${def.name.slice(1)}Table`;
    const table = new Table(this, id, {
      tableName: tableName(stage.name, def.name),
      partitionKey: { name: def.partitionKey, type: AttributeType.STRING },
      sortKey: { name: def.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      encryption: TableEncryption.AWS_MANAGED,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: stage.production,
      removalPolicy: stage.removalPolicy,
      ...(def.timeToLiveAttribute ? { timeToLiveAttribute: def.timeToLiveAttribute } : {}),
      // The ledger's stream feeds the tamper watch (shared/workers/table.ts). Adding a stream to a deployed table
      // is an in-place update (CloudFormation: no interruption), so existing stages take it on their next deploy.
      ...(def.stream ? { stream: StreamViewType[def.stream] } : {}),
    });
    for (const index of def.indexes.slice(0, indexLimit)) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}

function definition(name: TableDefinition['name']): TableDefinition {
  const def = TABLES.find((table) => table.name === name);
  if (!def) throw new Error(`shared/store/tables.ts describes no ${name} table`);
  return def;
}

/**
 * How often each table is backed up (AWS Backup, copied to the replica region) and how long a backup is kept, in
 * both regions. The main table (firms, users, API keys, settings, governance items: nothing else holds them)
 * hourly: a lost region loses at most the last hour of it. The ledger table daily: its records reach the
 * replica bucket within 15 minutes and `ledgerctl recover ledger` rebuilds them from there; the daily copy brings
 * back the rest (the log's checkpoints and cosignatures). A DynamoDB backup is a full copy, so hourly copies of
 * the ledger would cost 24 times a daily one for nothing the replica bucket lacks.
 */
export const TABLE_BACKUPS = {
  main: { schedule: Schedule.cron({ minute: '0' }), keepDays: 7 },
  ledger: { schedule: Schedule.cron({ minute: '30', hour: '3' }), keepDays: 35 },
} as const;

/** The replica region's backup vault for the tables' copies: derived, like the replica bucket's name. */
export function tableBackupReplicaVaultName(stage: string): string {
  return `gls-${stage}-tables-replica`;
}

/** The replica bucket's name in its region: derived, so the primary stack names it without a cross-stack reference. */
export function immutableReplicaBucketName(stage: string, account: string): string {
  return `gls-${stage}-immutable-replica-${account}`;
}

/**
 * S3 replication of the immutable bucket to the replica bucket: every object version, its Object Lock retention
 * included (the role may read it), with replication time control (15 minutes for 99.99 % of objects, metrics to
 * see the lag). Deletes are never replicated (none are possible anyway).
 */
function replication(
  scope: Construct,
  replica: { bucketName: string; region: string },
): Partial<BucketProps> {
  const role = new Role(scope, 'ImmutableReplicationRole', {
    assumedBy: new ServicePrincipal('s3.amazonaws.com'),
    description: 'Replicates the immutable bucket (Object Lock) to its replica in another region',
  });
  return {
    replicationRole: role,
    replicationRules: [
      {
        destination: Bucket.fromBucketAttributes(scope, 'ImmutableReplica', {
          bucketName: replica.bucketName,
          region: replica.region,
        }),
        priority: 1,
        deleteMarkerReplication: false,
        replicationTimeControl: ReplicationTimeValue.FIFTEEN_MINUTES,
        metrics: ReplicationTimeValue.FIFTEEN_MINUTES,
      },
    ],
  };
}

/**
 * What the replication role may do (S3's documented set for replication with Object Lock): read the source's
 * configuration and every object version with its retention and legal hold, and replicate into the replica.
 */
function grantReplication(role: Role, source: Bucket, replicaBucketName: string): void {
  role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:GetReplicationConfiguration', 's3:ListBucket'],
      resources: [source.bucketArn],
    }),
  );
  role.addToPolicy(
    new PolicyStatement({
      actions: [
        's3:GetObjectVersionForReplication',
        's3:GetObjectVersionAcl',
        's3:GetObjectVersionTagging',
        's3:GetObjectRetention',
        's3:GetObjectLegalHold',
      ],
      resources: [source.arnForObjects('*')],
    }),
  );
  const { partition } = Stack.of(role);
  role.addToPolicy(
    new PolicyStatement({
      actions: ['s3:ReplicateObject', 's3:ReplicateTags', 's3:ObjectOwnerOverrideToBucketOwner'],
      resources: [`arn:${partition}:s3:::${replicaBucketName}/*`],
    }),
  );
  const reason =
    'S3 replication reads every object version of the immutable bucket and writes every key of its replica: object-level wildcards by nature.';
  acknowledge(role, wildcardUnder(role, source, '/*'), reason);
  const replicaPartition = Token.isUnresolved(partition) ? '<AWS::Partition>' : partition;
  acknowledge(role, `IAM5[Resource::arn:${replicaPartition}:s3:::${replicaBucketName}/*]`, reason);
}

export interface ImmutableReplicaStackProps extends StackProps {
  stage: StageSettings;
  retentionDays?: number;
}

/**
 * The immutable bucket's replica, in a stack of its own in the replica region (`-c replicaRegion=…`), deployed
 * before the primary stack that replicates into it: versioned, Object Lock in COMPLIANCE mode with the primary's
 * retention, every delete denied, kept whatever happens to the stack. A region's loss leaves every record copy
 * (up to the replication lag) in this bucket; `ledgerctl recover ledger` reads it with --immutable-bucket.
 */
export class ImmutableReplicaStack extends Stack {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: ImmutableReplicaStackProps) {
    const { stage, retentionDays = DEFAULT_RETENTION_DAYS, ...stackProps } = props;
    super(scope, id, stackProps);
    this.bucket = new Bucket(this, 'ImmutableReplicaBucket', {
      bucketName: immutableReplicaBucketName(stage.name, this.account),
      enforceSSL: true,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      removalPolicy: RemovalPolicy.RETAIN,
      versioned: true,
      objectLockEnabled: true,
      objectLockDefaultRetention: ObjectLockRetention.compliance(Duration.days(retentionDays)),
    });
    this.bucket.addToResourcePolicy(
      new PolicyStatement({
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    acknowledge(
      this.bucket,
      'S1',
      'Object-level access is audited with CloudTrail S3 data events, as for the primary immutable bucket.',
    );
    // The tables' backups, copied here from the primary region by its backup plans (Data.backUpTablesTo).
    new BackupVault(this, 'TableBackupReplicaVault', {
      backupVaultName: tableBackupReplicaVaultName(stage.name),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
