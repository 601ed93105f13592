import { generateKeyPairSync, verify, createPublicKey } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsNoteSigner } from '../../../shared/adapters/aws/kms-note-signer.js';
import { LocalNoteSigner } from '../../../shared/adapters/local/local-note-signer.js';
import { ed25519KeyFromSpki, noteSignerOf } from '../../../shared/ports/note-signer.js';

const kms = mockClient(KMSClient);
beforeEach(() => kms.reset());

describe('the Ed25519 checkpoint key', () => {
  it('locally: created once (0600) in its file, signing RFC 8032 signatures that node:crypto verifies', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'note-signer-')), 'keys', 'checkpoint.pem');
    const first = new LocalNoteSigner(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = new LocalNoteSigner(file);
    expect(again.keyId).toBe(first.keyId);
    expect(first.keyId).toMatch(/^local:ed25519:[0-9a-f]{16}$/);
    const signer = noteSignerOf(first);
    const message = new TextEncoder().encode('example.com/ledger/firm_1\n3\nAAAA\n');
    const signature = await signer.sign(message);
    expect(signature).toHaveLength(64);
    const spki = await first.publicKeySpki();
    const key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    expect(verify(null, message, key, signature)).toBe(true);
    expect(await signer.publicKey()).toEqual(spki.slice(12));
  });

  it('in KMS: Sign with ED25519_SHA_512 over the RAW message, the key from GetPublicKey’s SPKI', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    kms.on(GetPublicKeyCommand).resolves({ PublicKey: spki, KeySpec: 'ECC_NIST_EDWARDS25519' });
    kms
      .on(SignCommand)
      .resolves({ Signature: new Uint8Array(64).fill(7), SigningAlgorithm: 'ED25519_SHA_512' });
    const signer = noteSignerOf(new KmsNoteSigner(new KMSClient({ region: 'eu-west-2' }), 'arn:key'));
    const message = new TextEncoder().encode('text\n');
    expect(await signer.sign(message)).toEqual(new Uint8Array(64).fill(7));
    expect(kms.commandCalls(SignCommand)[0]!.args[0].input).toEqual({
      KeyId: 'arn:key',
      Message: message,
      MessageType: 'RAW',
      SigningAlgorithm: 'ED25519_SHA_512',
    });
    expect(await signer.publicKey()).toEqual(new Uint8Array(spki.subarray(12)));
  });

  it('refuses a KMS key of another spec and a signature that is not 64 bytes', async () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    kms
      .on(GetPublicKeyCommand)
      .resolves({ PublicKey: publicKey.export({ type: 'spki', format: 'der' }), KeySpec: 'ECC_NIST_P256' });
    kms.on(SignCommand).resolves({ Signature: new Uint8Array(70) });
    const signer = noteSignerOf(new KmsNoteSigner(new KMSClient({ region: 'eu-west-2' }), 'arn:key'));
    await expect(signer.publicKey()).rejects.toThrow(/ECC_NIST_EDWARDS25519/);
    await expect(signer.sign(new Uint8Array(1))).rejects.toThrow(/64 bytes/);
    expect(() => ed25519KeyFromSpki(new Uint8Array(44))).toThrow(/Ed25519/);
  });
});
