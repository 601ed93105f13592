import { generateKeyPairSync } from 'node:crypto';
import { DescribeKeyCommand, GetPublicKeyCommand, KMSClient, NotFoundException } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { listStageKeys, nextUnusedKey } from '../../../shared/adapters/aws/kms-stage-keys.js';
import { fingerprintOf } from '../../../shared/ledger/key-history.js';

const kms = mockClient(KMSClient);
beforeEach(() => kms.reset());

const spki = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'der' });

describe('the stage signing keys ledgerctl rotates to', () => {
  it('lists the keys by alias in order up to the first missing one, with their ARNs and fingerprints', async () => {
    const keys = [spki(), spki()];
    const arn = (n: number) => `arn:aws:kms:eu-west-2:123456789012:key/key-${n}`;
    kms
      .on(DescribeKeyCommand, { KeyId: 'alias/gls-prod-ledger-signing' })
      .resolves({ KeyMetadata: { KeyId: 'key-1', Arn: arn(1) } })
      .on(DescribeKeyCommand, { KeyId: 'alias/gls-prod-ledger-signing-2' })
      .resolves({ KeyMetadata: { KeyId: 'key-2', Arn: arn(2) } })
      .on(DescribeKeyCommand, { KeyId: 'alias/gls-prod-ledger-signing-3' })
      .rejects(new NotFoundException({ message: 'Alias not found', $metadata: {} }));
    kms
      .on(GetPublicKeyCommand, { KeyId: arn(1) })
      .resolves({ PublicKey: keys[0], KeySpec: 'ECC_NIST_P256' })
      .on(GetPublicKeyCommand, { KeyId: arn(2) })
      .resolves({ PublicKey: keys[1], KeySpec: 'ECC_NIST_P256' });

    const listed = await listStageKeys(new KMSClient({}), 'prod');
    const fingerprints = keys.map((k) => fingerprintOf(k.toString('base64')));
    expect(listed).toEqual([
      { n: 1, arn: arn(1), fingerprint: fingerprints[0] },
      { n: 2, arn: arn(2), fingerprint: fingerprints[1] },
    ]);
    expect(kms.commandCalls(DescribeKeyCommand)).toHaveLength(3);
    expect(nextUnusedKey(listed, new Set([fingerprints[0]!]))?.n).toBe(2);
    expect(nextUnusedKey(listed, new Set(fingerprints))).toBeUndefined();
  });

  it('passes on any other KMS failure', async () => {
    kms.on(DescribeKeyCommand).rejects(new Error('AccessDeniedException'));
    await expect(listStageKeys(new KMSClient({}), 'prod')).rejects.toThrow('AccessDeniedException');
  });
});
