import { RemovalPolicy } from 'aws-cdk-lib';
import type { Grant } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
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
