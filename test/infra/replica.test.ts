import { readFileSync } from 'node:fs';
import type { Stack } from 'aws-cdk-lib';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { TABLE_BACKUPS, tableBackupReplicaVaultName } from '../../lib/data.js';
import { GovernanceLedgerStack } from '../../lib/stack.js';
import { synthTemplates, TEST_ENV } from './synth.js';

/**
 * Disaster recovery in AWS (issue 32, fault 6): point-in-time recovery on every table, Object Lock in COMPLIANCE
 * mode on the immutable bucket, and with `replicaRegion` its cross-region replica (Object Lock too) and replicas
 * of the multi-Region signing keys.
 */

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

function synthWithReplica(context: Record<string, unknown>, signingKeys = 1) {
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context },
    builtinCloudFormationValidation: false,
  });
  const root = new GovernanceLedgerStack(app, 'GovernanceLedger-dev', {
    env: TEST_ENV,
    stage: 'dev',
    signingKeys,
  });
  const stack = (id: string) => app.node.tryFindChild(id) as Stack | undefined;
  return {
    root: Template.fromStack(root),
    bucket: stack('GovernanceLedger-dev-ImmutableReplica'),
    keys: stack('GovernanceLedger-dev-SigningKeyReplica'),
    rootStack: root,
  };
}

describe('disaster recovery', () => {
  it('every table has point-in-time recovery; the immutable bucket is versioned with Object Lock in COMPLIANCE mode', () => {
    const root = synthTemplates()[0]!.template;
    const tables = root.findResources('AWS::DynamoDB::Table');
    expect(Object.keys(tables).length).toBeGreaterThanOrEqual(2);
    for (const table of Object.values(tables))
      expect(table.Properties.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    root.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE' } },
      },
    });
  });

  it('without a replica region: no replication, no multi-Region key, no replica stacks', () => {
    const { root, bucket, keys } = synthWithReplica({});
    expect(bucket).toBeUndefined();
    expect(keys).toBeUndefined();
    for (const b of Object.values(root.findResources('AWS::S3::Bucket')))
      expect(b.Properties?.ReplicationConfiguration).toBeUndefined();
    for (const key of Object.values(root.findResources('AWS::KMS::Key')))
      expect(key.Properties?.MultiRegion).toBeUndefined();
  });

  it('with -c replicaRegion: the immutable bucket replicates to an Object Lock bucket there, and the signing key is replicated', () => {
    const { root, bucket, keys, rootStack } = synthWithReplica({ replicaRegion: 'eu-west-1' });
    expect(bucket?.region).toBe('eu-west-1');
    const replica = Template.fromStack(bucket!);
    replica.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: `gls-dev-immutable-replica-${TEST_ENV.account}`,
      VersioningConfiguration: { Status: 'Enabled' },
      ObjectLockEnabled: true,
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE' } },
      },
    });
    replica.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
    replica.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: ['s3:DeleteObject', 's3:DeleteObjectVersion'] }),
        ]),
      },
    });

    root.hasResourceProperties('AWS::S3::Bucket', {
      ObjectLockEnabled: true,
      ReplicationConfiguration: {
        Rules: [
          Match.objectLike({
            Status: 'Enabled',
            Destination: Match.objectLike({
              Bucket: `arn:aws:s3:::gls-dev-immutable-replica-${TEST_ENV.account}`,
              ReplicationTime: { Status: 'Enabled', Time: { Minutes: 15 } },
            }),
            DeleteMarkerReplication: { Status: 'Disabled' },
          }),
        ],
      },
    });
    root.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: Match.arrayWith(['s3:GetObjectLegalHold', 's3:GetObjectRetention']) }),
          Match.objectLike({ Action: Match.arrayWith(['s3:ReplicateObject']) }),
        ]),
      },
    });
    // The bucket stack deploys first; the key replicas after the keys exist.
    expect(rootStack.dependencies).toContain(bucket);
    expect(keys?.dependencies).toContain(rootStack);

    root.hasResourceProperties('AWS::KMS::Key', { KeySpec: 'ECC_NIST_P256', MultiRegion: true });
    const keyReplicas = Template.fromStack(keys!);
    keyReplicas.resourceCountIs('AWS::KMS::ReplicaKey', 1);
    keyReplicas.hasResource('AWS::KMS::ReplicaKey', { DeletionPolicy: 'Retain' });
  });

  it('with -c replicaRegion: each table is backed up on its schedule, and every backup copied to a vault there', () => {
    const { root, bucket } = synthWithReplica({ replicaRegion: 'eu-west-1' });
    const replica = Template.fromStack(bucket!);
    replica.hasResource('AWS::Backup::BackupVault', {
      Properties: { BackupVaultName: tableBackupReplicaVaultName('dev') },
      DeletionPolicy: 'Retain',
    });
    root.hasResource('AWS::Backup::BackupVault', {
      Properties: { BackupVaultName: 'gls-dev-tables' },
      DeletionPolicy: 'Retain',
    });
    const replicaVaultArn = `arn:aws:backup:eu-west-1:${TEST_ENV.account}:backup-vault:gls-dev-tables-replica`;
    const tables = root.findResources('AWS::DynamoDB::Table');
    const tableId = (name: string) =>
      Object.keys(tables).find((id) => tables[id]!.Properties.TableName === `gls-dev-${name}`)!;
    for (const [name, backups] of Object.entries(TABLE_BACKUPS)) {
      root.hasResourceProperties('AWS::Backup::BackupPlan', {
        BackupPlan: {
          BackupPlanName: `gls-dev-${name}-table`,
          BackupPlanRule: [
            Match.objectLike({
              ScheduleExpression: backups.schedule.expressionString,
              Lifecycle: { DeleteAfterDays: backups.keepDays },
              CopyActions: [
                {
                  DestinationBackupVaultArn: replicaVaultArn,
                  Lifecycle: { DeleteAfterDays: backups.keepDays },
                },
              ],
            }),
          ],
        },
      });
      root.hasResourceProperties('AWS::Backup::BackupSelection', {
        BackupSelection: Match.objectLike({
          Resources: [{ 'Fn::GetAtt': [tableId(name), 'Arn'] }],
        }),
      });
    }
    expect(TABLE_BACKUPS.main.schedule.expressionString).toBe('cron(0 * * * ? *)');
    root.resourceCountIs('AWS::Backup::BackupPlan', 2);
  });

  it('without a replica region, no backup plan (point-in-time recovery covers the region)', () => {
    synthWithReplica({}).root.resourceCountIs('AWS::Backup::BackupPlan', 0);
  });

  it('an existing stage keeps its single-Region keys: only keys from multiRegionKeysFrom on are multi-Region and replicated', () => {
    const { root, keys } = synthWithReplica({ replicaRegion: 'eu-west-1', multiRegionKeysFrom: '3' }, 3);
    // The signing keys (the Ed25519 checkpoint key is not replicated: a new region registers a new one).
    const created = Object.values(
      root.findResources('AWS::KMS::Key', { Properties: { KeySpec: 'ECC_NIST_P256' } }),
    );
    expect(created.map((k) => k.Properties?.MultiRegion ?? false)).toEqual([false, false, true]);
    Template.fromStack(keys!).resourceCountIs('AWS::KMS::ReplicaKey', 1);
  });

  it("refuses a replica in the stack's own region", () => {
    expect(() => synthWithReplica({ replicaRegion: TEST_ENV.region })).toThrow(/must differ/);
  });
});
