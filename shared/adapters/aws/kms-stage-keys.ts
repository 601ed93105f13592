import type { KMSClient } from '@aws-sdk/client-kms';
import { fingerprintOf } from '../../ledger/key-history.js';
import { MAX_STAGE_SIGNING_KEYS, stageSigningKeyAlias } from '../../runtime/config.js';

export interface StageKey {
  n: number;
  arn: string;
  fingerprint: string;
}

/**
 * The stage's signing keys in order (1, 2, …, up to the first alias that does not exist), with their ARNs and
 * public-key fingerprints: what `ledgerctl signing-key rotate --stage` chooses the next key from.
 */
export async function listStageKeys(client: KMSClient, stage: string): Promise<StageKey[]> {
  const { DescribeKeyCommand, GetPublicKeyCommand } = await import('@aws-sdk/client-kms');
  const found: StageKey[] = [];
  for (let n = 1; n <= MAX_STAGE_SIGNING_KEYS; n++) {
    let arn: string | undefined;
    try {
      arn = (await client.send(new DescribeKeyCommand({ KeyId: stageSigningKeyAlias(stage, n) }))).KeyMetadata
        ?.Arn;
    } catch (error) {
      if ((error as Error).name === 'NotFoundException') break;
      throw error;
    }
    if (!arn) break;
    const { PublicKey } = await client.send(new GetPublicKeyCommand({ KeyId: arn }));
    if (!PublicKey) throw new Error(`KMS returned no public key for ${arn}`);
    found.push({ n, arn, fingerprint: fingerprintOf(Buffer.from(PublicKey).toString('base64')) });
  }
  return found;
}

/** The first of the stage's keys that the history does not hold yet: the one a rotation introduces. */
export function nextUnusedKey(keys: readonly StageKey[], known: ReadonlySet<string>): StageKey | undefined {
  return keys.find((k) => !known.has(k.fingerprint));
}
