import { Match, type Template } from 'aws-cdk-lib/assertions';
import { DEFAULT_RETENTION_DAYS } from '../../lib/data.js';
import { TABLES, TTL_ATTRIBUTE, tableName } from '../../shared/store/tables.js';
import { synth } from './synth.js';
import { onlyResource, resources } from './template-graph.js';

describe('tables', () => {
  let dev: Template;
  let prod: Template;
  beforeAll(() => {
    dev = synth();
    prod = synth({ stage: 'prod' });
  });

  it.each(TABLES)('creates $name from its shared description, with PITR and on-demand billing', (def) => {
    dev.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: tableName('dev', def.name),
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: def.partitionKey, KeyType: 'HASH' },
        { AttributeName: def.sortKey, KeyType: 'RANGE' },
      ],
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
    });
  });

  it.each(TABLES)('gives $name exactly its indexes, projecting all attributes', (def) => {
    const [, table] = onlyResource(dev, 'AWS::DynamoDB::Table', { TableName: tableName('dev', def.name) });
    const indexes = (table.Properties.GlobalSecondaryIndexes ?? []) as unknown[];
    expect(indexes).toHaveLength(def.indexes.length);
    for (const index of def.indexes) {
      expect(indexes).toContainEqual({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          ...(index.sortKey ? [{ AttributeName: index.sortKey, KeyType: 'RANGE' }] : []),
        ],
        Projection: { ProjectionType: 'ALL' },
      });
    }
  });

  it("creates only each table's first indexes with indexLimit, in their order (upgrading a stage)", () => {
    const limited = synth({ indexLimit: 2 });
    for (const def of TABLES) {
      const [, table] = onlyResource(limited, 'AWS::DynamoDB::Table', {
        TableName: tableName('dev', def.name),
      });
      const names = ((table.Properties.GlobalSecondaryIndexes ?? []) as { IndexName: string }[]).map(
        (index) => index.IndexName,
      );
      expect(names).toEqual(def.indexes.slice(0, 2).map((index) => index.indexName));
    }
    expect(() => synth({ indexLimit: 0 })).toThrow(/indexLimit must be a positive integer/);
  });

  it.each(TABLES)('enables TTL on $name exactly when its description names a TTL attribute', (def) => {
    const [, table] = onlyResource(dev, 'AWS::DynamoDB::Table', { TableName: tableName('dev', def.name) });
    expect(table.Properties.TimeToLiveSpecification).toEqual(
      def.timeToLiveAttribute ? { AttributeName: def.timeToLiveAttribute, Enabled: true } : undefined,
    );
  });

  it('streams the ledger table (keys only) for the tamper watch, and not the main table (issue 32)', () => {
    const tables = Object.values(resources(dev, 'AWS::DynamoDB::Table'));
    const byName = (name: string) => tables.find((t) => t.Properties.TableName === name)!;
    expect(byName(tableName('dev', 'ledger')).Properties.StreamSpecification).toEqual({
      StreamViewType: 'KEYS_ONLY',
    });
    expect(byName(tableName('dev', 'main')).Properties.StreamSpecification).toBeUndefined();
  });

  it('expires Idempotency-Key items in the main table by its TTL attribute', () => {
    expect(TABLES.find((t) => t.name === 'main')?.timeToLiveAttribute).toBe(TTL_ATTRIBUTE);
  });

  it('retains and protects the tables in prod', () => {
    const tables = Object.values(resources(prod, 'AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) {
      expect(table.DeletionPolicy).toBe('Retain');
      expect(table.UpdateReplacePolicy).toBe('Retain');
      expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    }
  });

  it('lets dev tables go with the stack', () => {
    for (const table of Object.values(resources(dev, 'AWS::DynamoDB::Table'))) {
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).not.toBe(true);
    }
  });
});

describe('buckets', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  const immutable = (t: Template) => onlyResource(t, 'AWS::S3::Bucket', { ObjectLockEnabled: true });

  it('locks the immutable bucket in COMPLIANCE mode for seven years by default', () => {
    expect(DEFAULT_RETENTION_DAYS).toBe(2557);
    const [, bucket] = immutable(template);
    expect(bucket.Properties).toMatchObject({
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: DEFAULT_RETENTION_DAYS } },
      },
      VersioningConfiguration: { Status: 'Enabled' },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('takes the retention from the stack props', () => {
    const [, bucket] = immutable(synth({ retentionDays: 3653 }));
    expect(bucket.Properties.ObjectLockConfiguration.Rule.DefaultRetention).toEqual({
      Mode: 'COMPLIANCE',
      Days: 3653,
    });
    expect(() => synth({ retentionDays: 0 })).toThrow(/retentionDays/);
  });

  it('denies deleting immutable objects to every principal', () => {
    const [bucketId] = immutable(template);
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Principal: { AWS: '*' },
            Action: ['s3:DeleteObject', 's3:DeleteObjectVersion'],
          }),
        ]),
      },
    });
  });

  it('blocks public access, encrypts and requires TLS on every bucket, and keeps them all', () => {
    const buckets = resources(template, 'AWS::S3::Bucket');
    // Immutable, uploads, certificates, and the web console's site (lib/console.ts).
    expect(Object.keys(buckets)).toHaveLength(4);
    for (const [id, bucket] of Object.entries(buckets)) {
      expect(bucket.DeletionPolicy).toBe('Retain');
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: id },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 's3:*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('expires uploads after a day and versions certificates', () => {
    const others = Object.entries(resources(template, 'AWS::S3::Bucket'))
      .filter(([id, b]) => b.Properties.ObjectLockEnabled !== true && !id.startsWith('ConsoleSite'))
      .map(([, b]) => b);
    const uploads = others.filter((b) => b.Properties.LifecycleConfiguration);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ ExpirationInDays: 1, Status: 'Enabled' }),
    );
    expect(uploads[0]!.Properties.VersioningConfiguration).toBeUndefined();
    const certificates = others.filter((b) => !b.Properties.LifecycleConfiguration);
    expect(certificates).toHaveLength(1);
    expect(certificates[0]!.Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
  });
});
