import { RemovalPolicy } from 'aws-cdk-lib';
import type { Grant } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../shared/runtime/config.js';
import type { StageSettings } from './stage.js';

/** The alias operators and bin/ledgerctl.ts use to find a stage's signing key. */
export function signingKeyAlias(stage: string): string {
  return `alias/gls-${stage}-ledger-signing`;
}

export interface LedgerSigningProps {
  stage: StageSettings;
}

/**
 * The KMS key that signs every record's chain hash (ECDSA P-256 over SHA-256, as the ledger format says).
 * Third parties verify signatures with its public key, so the key outlives any stack: RETAIN, always.
 */
export class LedgerSigning extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: LedgerSigningProps) {
    super(scope, id);
    this.key = new Key(this, 'SigningKey', {
      description: `Governance ledger (${props.stage.name}): signs ledger chain hashes`,
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      alias: signingKeyAlias(props.stage.name),
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** Every ledger append signs, and records carry the public key alongside the signature. */
  grantSign(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.signingKeyId, this.key.keyArn);
    return this.key.grant(fn, 'kms:Sign', 'kms:GetPublicKey');
  }

  /** Publishing the verification key needs nothing more. */
  grantPublicKey(fn: LambdaFunction): Grant {
    fn.addEnvironment(ENV.signingKeyId, this.key.keyArn);
    return this.key.grant(fn, 'kms:GetPublicKey');
  }
}
