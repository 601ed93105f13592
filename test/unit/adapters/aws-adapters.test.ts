import { createSign, generateKeyPairSync } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSigner } from '../../../shared/adapters/aws/kms-signer.js';
import { S3ObjectStore } from '../../../shared/adapters/aws/s3-object-store.js';
import { SqsQueue } from '../../../shared/adapters/aws/sqs-queue.js';
import { signedMessage } from '../../../shared/ledger/hashing.js';
import { verifySignature } from '../../../shared/ledger/verify.js';
import { ImmutableObjectError } from '../../../shared/ports/object-store.js';

const kms = mockClient(KMSClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  kms.reset();
  s3.reset();
  sqs.reset();
});

describe('KmsSigner', () => {
  // A real P-256 key stands in for the KMS key, so the signature the mock returns is genuinely verifiable.
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });

  it('signs the raw message with ECDSA_SHA_256 and returns the DER signature', async () => {
    kms.on(SignCommand).callsFake((input: { Message: Uint8Array }) => {
      const signer = createSign('SHA256');
      signer.update(input.Message);
      return { Signature: signer.sign({ key: privateKey, dsaEncoding: 'der' }) };
    });
    kms.on(GetPublicKeyCommand).resolves({ PublicKey: spki, KeySpec: 'ECC_NIST_P256' });
    const signer = new KmsSigner(new KMSClient({}), 'arn:aws:kms:eu-west-2:1:key/abc');
    const chainHash = 'f'.repeat(64);
    const signature = await signer.sign(signedMessage(chainHash));

    const call = kms.commandCalls(SignCommand)[0]!.args[0].input;
    expect(call).toMatchObject({
      KeyId: 'arn:aws:kms:eu-west-2:1:key/abc',
      MessageType: 'RAW',
      SigningAlgorithm: 'ECDSA_SHA_256',
    });
    const key = Buffer.from(await signer.publicKeySpki()).toString('base64');
    expect(verifySignature(chainHash, Buffer.from(signature).toString('base64'), key)).toBe(true);
  });

  it('fetches the public key once and refuses a key of another spec', async () => {
    kms.on(GetPublicKeyCommand).resolves({ PublicKey: spki, KeySpec: 'ECC_NIST_P256' });
    const signer = new KmsSigner(new KMSClient({}), 'k');
    await signer.publicKeySpki();
    await signer.publicKeySpki();
    expect(kms.commandCalls(GetPublicKeyCommand)).toHaveLength(1);

    kms.reset();
    kms.on(GetPublicKeyCommand).resolves({ PublicKey: spki, KeySpec: 'RSA_2048' });
    await expect(new KmsSigner(new KMSClient({}), 'k').publicKeySpki()).rejects.toThrow(/ECC_NIST_P256/);
  });
});

describe('S3ObjectStore', () => {
  const buckets = { immutable: 'lock-bucket', uploads: 'uploads-bucket', certificates: 'certs-bucket' };
  // The adapter reads bodies through the SDK's stream mixin; this is the one method it calls.
  const body = (text: string) => ({ transformToByteArray: async () => new Uint8Array(Buffer.from(text)) });
  const preconditionFailed = () =>
    new S3ServiceException({
      name: 'PreconditionFailed',
      $fault: 'client',
      $metadata: { httpStatusCode: 412 },
    });

  it('writes to the immutable bucket only if the key is new, with a checksum', async () => {
    s3.on(PutObjectCommand).resolves({});
    await new S3ObjectStore(new S3Client({}), buckets).put(
      'immutable',
      'ledger/f/1.json',
      Buffer.from('{}'),
      'application/json',
    );
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toMatchObject({
      Bucket: 'lock-bucket',
      Key: 'ledger/f/1.json',
      IfNoneMatch: '*',
      ChecksumAlgorithm: 'SHA256',
      ContentType: 'application/json',
    });
  });

  it('accepts an identical existing immutable object and refuses a different one', async () => {
    s3.on(PutObjectCommand).rejects(preconditionFailed());
    s3.on(GetObjectCommand).callsFake(() => ({
      Body: body('{"a":1}') as never,
      ContentType: 'application/json',
    }));
    const store = new S3ObjectStore(new S3Client({}), buckets);
    await expect(
      store.put('immutable', 'k', Buffer.from('{"a":1}'), 'application/json'),
    ).resolves.toBeUndefined();
    await expect(
      store.put('immutable', 'k', Buffer.from('{"a":2}'), 'application/json'),
    ).rejects.toBeInstanceOf(ImmutableObjectError);
  });

  it('does not make ordinary writes conditional, and never deletes immutable objects', async () => {
    s3.on(PutObjectCommand).resolves({});
    const store = new S3ObjectStore(new S3Client({}), buckets);
    await store.put('uploads', 'k', Buffer.from('x'), 'application/pdf');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input.IfNoneMatch).toBeUndefined();
    await expect(store.delete('immutable', 'k')).rejects.toBeInstanceOf(ImmutableObjectError);
  });

  it('answers null for a missing object', async () => {
    s3.on(GetObjectCommand).rejects(
      new S3ServiceException({ name: 'NoSuchKey', $fault: 'client', $metadata: { httpStatusCode: 404 } }),
    );
    expect(await new S3ObjectStore(new S3Client({}), buckets).get('uploads', 'nope')).toBeNull();
  });
});

describe('SqsQueue', () => {
  it('sends JSON to the configured queue URL', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: '1' });
    await new SqsQueue(new SQSClient({}), (name) => `https://sqs/${name}`).send('ledger-archive', { a: 1 });
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://sqs/ledger-archive',
      MessageBody: '{"a":1}',
    });
  });

  it('passes a delay as DelaySeconds (the backoff of a webhook retry) and refuses one beyond 900 s', async () => {
    sqs.on(SendMessageCommand).resolves({ MessageId: '1' });
    const queue = new SqsQueue(new SQSClient({}), (name) => `https://sqs/${name}`);
    await queue.send('webhooks', { b: 2 }, { delaySeconds: 120 });
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: 'https://sqs/webhooks',
      MessageBody: '{"b":2}',
      DelaySeconds: 120,
    });
    await expect(queue.send('webhooks', {}, { delaySeconds: 901 })).rejects.toThrow(RangeError);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  });
});
