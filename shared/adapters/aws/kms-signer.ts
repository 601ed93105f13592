import type { KMSClient } from '@aws-sdk/client-kms';
import { lazyClient, type ClientSource } from './lazy-sdk.js';
import type { Signer } from '../../ports/signer.js';

/** Signs with an AWS KMS ECC_NIST_P256 key: ECDSA_SHA_256 over the RAW message (KMS hashes it). */
export class KmsSigner implements Signer {
  private spki: Promise<Uint8Array> | undefined;

  private readonly client: () => Promise<KMSClient>;

  constructor(
    client: ClientSource<KMSClient>,
    readonly keyId: string,
  ) {
    this.client = lazyClient(client);
  }

  async sign(message: Uint8Array): Promise<Uint8Array> {
    const { SignCommand } = await import('@aws-sdk/client-kms');
    const { Signature } = await (
      await this.client()
    ).send(
      new SignCommand({
        KeyId: this.keyId,
        Message: message,
        MessageType: 'RAW',
        SigningAlgorithm: 'ECDSA_SHA_256',
      }),
    );
    if (!Signature) throw new Error('KMS returned no signature');
    return Signature;
  }

  /** Asks KMS for the key's public key without the cache: GET /health's probe (issue 32). */
  async probe(): Promise<void> {
    const [client, { GetPublicKeyCommand }] = await Promise.all([
      this.client(),
      import('@aws-sdk/client-kms'),
    ]);
    await client.send(new GetPublicKeyCommand({ KeyId: this.keyId }));
  }

  publicKeySpki(): Promise<Uint8Array> {
    this.spki ??= Promise.all([this.client(), import('@aws-sdk/client-kms')])
      .then(([client, { GetPublicKeyCommand }]) =>
        client.send(new GetPublicKeyCommand({ KeyId: this.keyId })),
      )
      .then(({ PublicKey, KeySpec }) => {
        if (!PublicKey) throw new Error('KMS returned no public key');
        if (KeySpec !== 'ECC_NIST_P256')
          throw new Error(`Signing key has spec ${KeySpec}, expected ECC_NIST_P256`);
        return PublicKey;
      });
    this.spki.catch(() => (this.spki = undefined));
    return this.spki;
  }
}
