import {
  DependencyTimeoutException,
  KMSClient,
  KMSInternalException,
  KMSInvalidStateException,
  SignCommand,
} from '@aws-sdk/client-kms';
import { PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSigner } from '../../../shared/adapters/aws/kms-signer.js';
import { S3ObjectStore } from '../../../shared/adapters/aws/s3-object-store.js';
import { SqsQueue } from '../../../shared/adapters/aws/sqs-queue.js';
import {
  BoundedObjectStore,
  BoundedQueue,
  BoundedSigner,
  boundedDb,
  withinBudget,
} from '../../../shared/adapters/bounded-dependencies.js';
import { isThrottling, ThrottledSigner } from '../../../shared/adapters/throttled-signer.js';
import { isTransientFault } from '../../../shared/adapters/transient-faults.js';
import { DependencyUnavailableError, ServiceUnavailableError } from '../../../shared/errors.js';
import { toErrorResponse } from '../../../shared/http/errors.js';
import { ImmutableObjectError } from '../../../shared/ports/object-store.js';
import { sdkClientBudget } from '../../../shared/runtime/config.js';
import type { DocumentDb } from '../../../shared/store/dynamo.js';

const kms = mockClient(KMSClient);
const s3 = mockClient(S3Client);
const sqs = mockClient(SQSClient);
const budget = { budgetMs: 200, retryAfterSeconds: 2 };
const meta = (status: number) => ({ $metadata: { httpStatusCode: status } });

beforeEach(() => {
  kms.reset();
  s3.reset();
  sqs.reset();
});

describe('transient faults', () => {
  it('are timeouts, lost connections, 5xx, throttling and KMS faults; not a failed condition or a missing key', () => {
    expect(isTransientFault(Object.assign(new Error('x'), { name: 'TimeoutError' }))).toBe(true);
    expect(isTransientFault(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isTransientFault(Object.assign(new Error('x'), { $metadata: { httpStatusCode: 503 } }))).toBe(
      true,
    );
    expect(isTransientFault(new Error('wrapped', { cause: { code: 'ECONNRESET' } }))).toBe(true);
    expect(
      isTransientFault(Object.assign(new Error('x'), { name: 'ProvisionedThroughputExceededException' })),
    ).toBe(true);
    for (const name of ['ConditionalCheckFailedException', 'TransactionCanceledException', 'NoSuchKey'])
      expect(isTransientFault(Object.assign(new Error('x'), { name, $fault: 'client', ...meta(400) }))).toBe(
        false,
      );
    expect(isTransientFault(new Error('plain'))).toBe(false);
  });
});

describe('withinBudget', () => {
  it('turns a call still running after its budget into DependencyUnavailableError (503, Retry-After)', async () => {
    const started = Date.now();
    const error = await withinBudget('database', budget, () => new Promise(() => undefined)).catch((e) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({
      dependency: 'database',
      retryAfterSeconds: 2,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('passes a caller’s own errors and the kept ones through unchanged', async () => {
    const refused = new ImmutableObjectError('immutable', 'k', 'overwrite');
    await expect(withinBudget('objects', budget, () => Promise.reject(refused))).rejects.toBe(refused);
    const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    await expect(withinBudget('signer', budget, () => Promise.reject(throttled), isThrottling)).rejects.toBe(
      throttled,
    );
  });

  it('bounds every command of the document client', async () => {
    const stalled: DocumentDb = { send: (() => new Promise(() => undefined)) as DocumentDb['send'] };
    await expect(boundedDb(stalled, budget).send({} as never)).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });
});

describe('AWS adapters within their budgets', () => {
  it('KMS: KMSInternalException, DependencyTimeoutException and a disabled key are 503s, throttling is retried', async () => {
    const faults = [
      new KMSInternalException({ message: 'internal', ...meta(500) }),
      new DependencyTimeoutException({ message: 'timed out', ...meta(503) }),
      new KMSInvalidStateException({ message: 'disabled', ...meta(400) }),
    ];
    for (const fault of faults) {
      kms.reset();
      kms.on(SignCommand).rejects(fault);
      const signer = new ThrottledSigner(
        new BoundedSigner(new KmsSigner(new KMSClient({}), 'arn:key'), budget, isThrottling),
        { deadlineMs: 1_000, maxInFlight: 2 },
      );
      const error = await signer.sign(new Uint8Array([1])).catch((e) => e);
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect(error.dependency).toBe('signer');
    }
  });

  it('KMS throttling past the signer deadline stays the signer’s own 503', async () => {
    kms
      .on(SignCommand)
      .rejects(Object.assign(new Error('throttled'), { name: 'ThrottlingException', ...meta(400) }));
    const signer = new ThrottledSigner(
      new BoundedSigner(new KmsSigner(new KMSClient({}), 'arn:key'), budget, isThrottling),
      { deadlineMs: 50, maxInFlight: 2 },
    );
    const error = await signer.sign(new Uint8Array([1])).catch((e) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect(error).not.toBeInstanceOf(DependencyUnavailableError);
  });

  it('S3: a 5xx on put is a 503', async () => {
    s3.on(PutObjectCommand).rejects(
      new S3ServiceException({ name: 'InternalError', $fault: 'server', message: 'internal', ...meta(500) }),
    );
    const store = new BoundedObjectStore(
      new S3ObjectStore(new S3Client({}), { immutable: 'i', uploads: 'u', certificates: 'c' }),
      budget,
    );
    const error = await store.put('uploads', 'k', new Uint8Array([1]), 'application/json').catch((e) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error.dependency).toBe('objects');
  });

  it('SQS: a refused send is a 503', async () => {
    sqs.on(SendMessageCommand).rejects(
      new SQSServiceException({
        name: 'InternalFailure',
        $fault: 'server',
        message: 'failure',
        ...meta(500),
      }),
    );
    const queue = new BoundedQueue(new SqsQueue(new SQSClient({}), () => 'https://sqs/q'), budget);
    const error = await queue.send('webhooks', { n: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error.dependency).toBe('queue');
  });

  it('every client gets the request and connection timeouts and the standard retry strategy', async () => {
    const settings = sdkClientBudget({
      timeoutMs: 2_000,
      connectTimeoutMs: 1_000,
      maxAttempts: 3,
      budgetMs: 5_000,
      requestBudgetMs: 8_000,
      healthCheckTimeoutMs: 1_000,
      retryAfterSeconds: 2,
    });
    expect(settings).toEqual({
      maxAttempts: 3,
      retryMode: 'standard',
      requestHandler: { requestTimeout: 2_000, connectionTimeout: 1_000, throwOnRequestTimeout: true },
    });
    expect(sdkClientBudget(undefined, { retryTimedOut: false }).requestHandler.throwOnRequestTimeout).toBe(
      false,
    );
    const client = new KMSClient({ region: 'eu-west-2', ...settings });
    expect(await client.config.maxAttempts()).toBe(3);
    expect((await client.config.retryStrategy()) as { mode?: string }).toMatchObject({ mode: 'standard' });
  });
});

describe('the error mapper', () => {
  it('answers an unavailable dependency and any raw transient fault 503 with Retry-After, naming no internals', () => {
    for (const error of [
      new DependencyUnavailableError('database', 2),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' }),
    ]) {
      const response = toErrorResponse(error, 'req-1');
      expect(response.statusCode).toBe(503);
      expect(response.headers?.['retry-after']).toBe('2');
      const body = JSON.parse(response.body as string) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(body.error.message).not.toMatch(/ECONN|127\.0\.0\.1|database/);
    }
    expect(toErrorResponse(new Error('a bug'), 'req-2').statusCode).toBe(500);
  });
});
