import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Grant } from 'aws-cdk-lib/aws-iam';
import { CfnReplicaKey, Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV, MAX_STAGE_SIGNING_KEYS, stageSigningKeyAlias } from '../shared/runtime/config.js';
import type { StageSettings } from './stage.js';

/** The alias operators and bin/ledgerctl.ts use to find a stage's first signing key. */
export function signingKeyAlias(stage: string): string {
  return stageSigningKeyAlias(stage, 1);
}

/** The alias of a stage's Ed25519 checkpoint key. */
export function checkpointKeyAlias(stage: string): string {
  return `alias/gls-${stage}-log-checkpoint`;
}

export interface LedgerSigningProps {
  stage: StageSettings;
  /**
   * How many signing keys the stage has (`-c signingKeys=N`): key 1 is the stack's original key, each rotation
   * needs one more (docs/deploy.md, "Rotating the signing key"). @default 1
   */
  signingKeys?: number;
  /**
   * How many of the oldest keys are retired (`-c retiredSigningKeys=R`): once a rotation's transition is over,
   * no function may Sign with them any more; they stay, as every key does, for their public keys. @default 0
   */
  retiredSigningKeys?: number;
  /**
   * Keys numbered from this one on are KMS multi-Region primary keys (`-c multiRegionKeysFrom=N`), which a replica
   * region can hold copies of (SigningKeyReplicaStack). KMS cannot make an existing key multi-Region (CloudFormation
   * refuses the update), so a stage deployed before this option keeps its keys single-Region and gets a
   * multi-Region key by rotating to a new one (docs/operations.md, "Signing key in another region").
   * @default no multi-Region key
   */
  multiRegionKeysFrom?: number;
}

/**
 * The KMS keys that sign every record's chain hash (ECDSA P-256 over SHA-256, as the ledger format says).
 * Third parties verify signatures with their public keys, so every key outlives any stack: RETAIN, always.
 * Which key signs which record is decided by the signing-key history (docs/architecture.md §5 "Signing keys");
 * the stack only decides which keys may sign at all.
 */
export class LedgerSigning extends Construct {
  /** Every key, oldest first; `keys[0]` is the original key (construct id and alias unchanged). */
  readonly keys: Key[];
  /** The keys functions may Sign with: all but the retired ones. */
  readonly signingKeys: Key[];
  /** The Ed25519 key that signs the firms' log checkpoints beside the ledger key (retained like every key). */
  readonly checkpointKey: Key;

  /** The original key (kept for callers that knew only one). */
  get key(): Key {
    return this.keys[0]!;
  }

  constructor(scope: Construct, id: string, props: LedgerSigningProps) {
    super(scope, id);
    const count = props.signingKeys ?? 1;
    const retired = props.retiredSigningKeys ?? 0;
    if (!Number.isInteger(count) || count < 1 || count > MAX_STAGE_SIGNING_KEYS)
      throw new Error(`signingKeys must be 1..${MAX_STAGE_SIGNING_KEYS}, got ${count}`);
    if (!Number.isInteger(retired) || retired < 0 || retired >= count)
      throw new Error(
        `retiredSigningKeys must be 0..${count - 1} (one key must be able to sign), got ${retired}`,
      );
    this.keys = Array.from(
      { length: count },
      (_, i) =>
        new Key(this, i === 0 ? 'SigningKey' : `SigningKey${i + 1}`, {
          description: `Governance ledger (${props.stage.name}): signs ledger chain hashes (key ${i + 1})`,
          keySpec: KeySpec.ECC_NIST_P256,
          keyUsage: KeyUsage.SIGN_VERIFY,
          alias: stageSigningKeyAlias(props.stage.name, i + 1),
          removalPolicy: RemovalPolicy.RETAIN,
          ...(props.multiRegionKeysFrom !== undefined && i + 1 >= props.multiRegionKeysFrom
            ? { multiRegion: true }
            : {}),
        }),
    );
    this.signingKeys = this.keys.slice(retired);
    this.checkpointKey = new Key(this, 'CheckpointKey', {
      description: `Governance ledger (${props.stage.name}): signs verifiable-log checkpoints (Ed25519, type 0x01)`,
      keySpec: KeySpec.ECC_NIST_EDWARDS25519,
      keyUsage: KeyUsage.SIGN_VERIFY,
      alias: checkpointKeyAlias(props.stage.name),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * The log's Ed25519 checkpoint key (issue 31): Sign (ED25519_SHA_512, RAW) and GetPublicKey for the one function
   * that integrates and signs the firms' logs (the log-checkpoint worker), and CHECKPOINT_KEY_ID to reach it.
   */
  grantSignCheckpoints(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.checkpointKeyId, this.checkpointKey.keyArn);
    return this.checkpointKey.grant(fn, 'kms:Sign', 'kms:GetPublicKey');
  }

  /**
   * Every ledger append signs, with whichever key the history names for the record's time: Sign on every key
   * not retired, GetPublicKey on all (the writer checks that a key's signer holds the key the history says).
   * SIGNING_KEY_ID names the original key, the history's first entry until a rotation is written.
   */
  grantSign(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.signingKeyId, this.key.keyArn);
    return this.signingKeys
      .map((key) => key.grant(fn, 'kms:Sign'))
      .concat(this.keys.map((key) => key.grant(fn, 'kms:GetPublicKey')))
      .reduce((all, grant) => all.combine(grant));
  }

  /** Publishing and verifying need the original key's public key only (the history holds the others). */
  grantPublicKey(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.signingKeyId, this.key.keyArn);
    return this.key.grant(fn, 'kms:GetPublicKey');
  }
}

export interface SigningKeyReplicaStackProps extends StackProps {
  stage: StageSettings;
  /** The multi-Region primary keys to replicate, with their numbers (alias gls-<stage>-ledger-signing-<n>). */
  primaries: { number: number; key: Key }[];
}

/**
 * Replicas of the stage's multi-Region signing keys in the replica region (`-c replicaRegion=…`): the same key
 * material and key id, so after a region's loss a stack deployed there signs with the same public keys, and
 * every published record stays verifiable with the key history as it is. Kept whatever happens to the stack.
 * Deployed after the primary stack (it refers to the primaries' ARNs across regions).
 */
export class SigningKeyReplicaStack extends Stack {
  readonly replicas: CfnReplicaKey[];

  constructor(scope: Construct, id: string, props: SigningKeyReplicaStackProps) {
    const { stage, primaries, ...stackProps } = props;
    super(scope, id, stackProps);
    this.replicas = primaries.map(({ number, key }) => {
      const replica = new CfnReplicaKey(this, `SigningKeyReplica${number}`, {
        primaryKeyArn: key.keyArn,
        description: `Governance ledger (${stage.name}): replica of signing key ${number}`,
        keyPolicy: {
          Version: '2012-10-17',
          Statement: [
            {
              Sid: 'AccountAdministers',
              Effect: 'Allow',
              Principal: { AWS: `arn:${this.partition}:iam::${this.account}:root` },
              Action: 'kms:*',
              Resource: '*',
            },
          ],
        },
      });
      replica.applyRemovalPolicy(RemovalPolicy.RETAIN);
      return replica;
    });
  }
}
