import { generateKeyPairSync, sign } from 'node:crypto';
import { KMSClient, KMSServiceException, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { KmsSigner } from '../../../shared/adapters/aws/kms-signer.js';
import { emfSignMetrics } from '../../../shared/adapters/aws/sign-metrics.js';
import { ThrottlingException } from '../../../shared/adapters/local/local-signer.js';
import { ThrottledSigner, type SignMetrics } from '../../../shared/adapters/throttled-signer.js';
import { ServiceUnavailableError } from '../../../shared/errors.js';
import { toErrorResponse } from '../../../shared/http/errors.js';
import type { Signer } from '../../../shared/ports/signer.js';

/** A signer whose calls are scripted: each call takes the next outcome (an error to throw, or a signature). */
function scripted(outcomes: Array<Error | 'ok'>): Signer & { calls: number } {
  return {
    keyId: 'k',
    calls: 0,
    async sign() {
      const outcome = outcomes[this.calls++] ?? 'ok';
      if (outcome instanceof Error) throw outcome;
      return new Uint8Array([1, 2, 3]);
    },
    async publicKeySpki() {
      return new Uint8Array([9]);
    },
  };
}

function counting(): SignMetrics & { signed: () => void; throttled: () => void; counts: number[] } {
  const counts = [0, 0];
  return { counts, signed: () => (counts[0]! += 1), throttled: () => (counts[1]! += 1) };
}

/** A fake clock: sleeping advances it, so the tests never wait for real time. */
function fakeTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

describe('ThrottledSigner', () => {
  it('retries ThrottlingException with full-jitter exponential backoff, then returns the signature', async () => {
    const inner = scripted([new ThrottlingException(), new ThrottlingException(), 'ok']);
    const metrics = counting();
    const time = fakeTime();
    const signer = new ThrottledSigner(inner, {
      maxInFlight: 8,
      deadlineMs: 5_000,
      baseDelayMs: 100,
      random: () => 0.5,
      metrics,
      ...time,
    });

    await expect(signer.sign(new Uint8Array([0]))).resolves.toEqual(new Uint8Array([1, 2, 3]));
    expect(inner.calls).toBe(3);
    // Each wait is random x min(max, base x 2^attempt): 0.5 x 100, then 0.5 x 200.
    expect(time.sleeps).toEqual([50, 100]);
    expect(metrics.counts).toEqual([1, 2]);
  });

  it('answers ServiceUnavailableError (503 with Retry-After) when throttling outlasts the deadline', async () => {
    const inner = scripted(Array.from({ length: 1000 }, () => new ThrottlingException()));
    const time = fakeTime();
    const signer = new ThrottledSigner(inner, {
      maxInFlight: 8,
      deadlineMs: 2_000,
      baseDelayMs: 100,
      maxDelayMs: 400,
      retryAfterSeconds: 2,
      random: () => 0.99,
      ...time,
    });

    const error = await signer.sign(new Uint8Array([0])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableError);
    expect((error as ServiceUnavailableError).retryAfterSeconds).toBe(2);
    expect(time.now()).toBeLessThanOrEqual(2_000);
    expect(inner.calls).toBeGreaterThan(3);
    const response = toErrorResponse(error, 'req-1');
    expect(response.statusCode).toBe(503);
    expect(response.headers?.['retry-after']).toBe('2');
    expect(JSON.parse(response.body!)).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } });
  });

  it('passes other errors through unchanged, without retrying', async () => {
    const denied = Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' });
    const inner = scripted([denied]);
    const signer = new ThrottledSigner(inner, { maxInFlight: 8, deadlineMs: 5_000, ...fakeTime() });
    await expect(signer.sign(new Uint8Array([0]))).rejects.toBe(denied);
    expect(inner.calls).toBe(1);
  });

  it('keeps at most maxInFlight calls running; the rest wait in line', async () => {
    let running = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const inner: Signer = {
      keyId: 'k',
      async sign() {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((done) => release.push(done));
        running -= 1;
        return new Uint8Array([1]);
      },
      publicKeySpki: async () => new Uint8Array(),
    };
    const signer = new ThrottledSigner(inner, { maxInFlight: 3, deadlineMs: 60_000 });
    const calls = Array.from({ length: 10 }, () => signer.sign(new Uint8Array([0])));
    for (let settled = 0; settled < 10; settled++) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(running).toBeLessThanOrEqual(3);
      release.shift()?.();
    }
    while (release.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      release.shift()?.();
    }
    await Promise.all(calls);
    expect(most).toBe(3);
  });

  it('answers 503 when no slot frees up before the deadline', async () => {
    const inner: Signer = {
      keyId: 'k',
      sign: () => new Promise<Uint8Array>(() => undefined),
      publicKeySpki: async () => new Uint8Array(),
    };
    const signer = new ThrottledSigner(inner, { maxInFlight: 1, deadlineMs: 20 });
    void signer.sign(new Uint8Array([0]));
    await expect(signer.sign(new Uint8Array([0]))).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('retries a throttled KMS Sign (aws-sdk-client-mock) and counts it as EMF metrics', async () => {
    const kms = mockClient(KMSClient);
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const throttled = new KMSServiceException({
      name: 'ThrottlingException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
      message: 'Rate exceeded',
    });
    kms
      .on(SignCommand)
      .rejectsOnce(throttled)
      .callsFake((input: { Message: Uint8Array }) => ({
        Signature: sign('sha256', input.Message, { key: privateKey, dsaEncoding: 'der' }),
      }));
    const lines: string[] = [];
    const signer = new ThrottledSigner(new KmsSigner(new KMSClient({}), 'k'), {
      maxInFlight: 8,
      deadlineMs: 5_000,
      baseDelayMs: 1,
      metrics: emfSignMetrics((line) => lines.push(line)),
    });

    await signer.sign(new Uint8Array([1]));
    await new Promise((resolve) => setImmediate(resolve));
    expect(kms.commandCalls(SignCommand)).toHaveLength(2);
    const metrics = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(metrics.reduce((n, m) => n + (m.SignCalls as number), 0)).toBe(1);
    expect(metrics.reduce((n, m) => n + (m.SignThrottled as number), 0)).toBe(1);
    expect(metrics[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'GovernanceLedger',
            Metrics: [{ Name: 'SignCalls' }, { Name: 'SignThrottled' }],
          },
        ],
      },
    });
    kms.restore();
  });
});
