import type { KMSClient } from '@aws-sdk/client-kms';
import { NOTE_SIGNING_ALGORITHM, NOTE_SIGNING_KEY_SPEC } from '../../ports/note-signer.js';
import type { Signer } from '../../ports/signer.js';
import { lazyClient, type ClientSource } from './lazy-sdk.js';

/**
 * The Ed25519 checkpoint key in AWS KMS (issue 31): key spec ECC_NIST_EDWARDS25519, Sign with ED25519_SHA_512
 * over the RAW message (KMS answers the 64-byte RFC 8032 signature), GetPublicKey answering the DER
 * SubjectPublicKeyInfo. Signer-shaped so it shares the ledger key's throttling wrapper; noteSignerOf
 * (shared/ports/note-signer.ts) makes it the log's NoteSigner.
 */
export class KmsNoteSigner implements Signer {
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
    const { Signature, SigningAlgorithm } = await (
      await this.client()
    ).send(
      new SignCommand({
        KeyId: this.keyId,
        Message: message,
        MessageType: 'RAW',
        SigningAlgorithm: NOTE_SIGNING_ALGORITHM,
      }),
    );
    if (!Signature) throw new Error('KMS returned no signature');
    if (SigningAlgorithm !== undefined && SigningAlgorithm !== NOTE_SIGNING_ALGORITHM)
      throw new Error(`KMS signed with ${SigningAlgorithm}, expected ${NOTE_SIGNING_ALGORITHM}`);
    return Signature;
  }

  publicKeySpki(): Promise<Uint8Array> {
    this.spki ??= Promise.all([this.client(), import('@aws-sdk/client-kms')])
      .then(([client, { GetPublicKeyCommand }]) =>
        client.send(new GetPublicKeyCommand({ KeyId: this.keyId })),
      )
      .then(({ PublicKey, KeySpec }) => {
        if (!PublicKey) throw new Error('KMS returned no public key');
        if (KeySpec !== NOTE_SIGNING_KEY_SPEC)
          throw new Error(`Checkpoint key has spec ${KeySpec}, expected ${NOTE_SIGNING_KEY_SPEC}`);
        return PublicKey;
      });
    this.spki.catch(() => (this.spki = undefined));
    return this.spki;
  }
}
