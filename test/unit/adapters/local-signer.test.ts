import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import { SignerQuota } from '../../../shared/adapters/local/signer-quota.js';

const keyFile = () => join(mkdtempSync(join(tmpdir(), 'gls-local-signer-')), 'key.pem');

describe('SignerQuota', () => {
  it('lets a second of calls through at once, then one per interval', () => {
    const quota = SignerQuota.create(4);
    const t = 1_000_000;
    expect([1, 2, 3, 4, 5].map(() => quota.tryTake(t))).toEqual([true, true, true, true, false]);
    expect(quota.tryTake(t + 200)).toBe(false);
    expect(quota.tryTake(t + 250)).toBe(true);
    expect(quota.tryTake(t + 250)).toBe(false);
    // After a quiet second the whole burst is available again.
    expect([1, 2, 3, 4, 5].map(() => quota.tryTake(t + 2_500))).toEqual([true, true, true, true, false]);
  });

  it('is unlimited at rate 0', () => {
    const quota = SignerQuota.create(0);
    expect(Array.from({ length: 10_000 }, () => quota.tryTake(0)).every(Boolean)).toBe(true);
  });

  it('is one quota and one set of counters for every holder of its buffer', () => {
    const quota = SignerQuota.create(2);
    const other = SignerQuota.attach(quota.buffer);
    expect(other.ratePerSecond).toBe(2);
    expect([quota.tryTake(5_000), other.tryTake(5_000), quota.tryTake(5_000)]).toEqual([true, true, false]);
    quota.countSigned();
    other.countSigned();
    other.countThrottled();
    expect(quota.counts()).toEqual({ signCalls: 2, signThrottled: 1, checkpointSignCalls: 0 });
  });
});

describe('LocalSigner under a quota', () => {
  it('throws a KMS-shaped ThrottlingException beyond the rate and counts served and throttled calls', async () => {
    const quota = SignerQuota.create(3);
    const signer = new LocalSigner(keyFile(), { quota });
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => signer.sign(new Uint8Array([1]))),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    const error = (refused[0] as PromiseRejectedResult).reason as Error & {
      $metadata: { httpStatusCode: number };
    };
    expect(error.name).toBe('ThrottlingException');
    expect(error.$metadata.httpStatusCode).toBe(400);
    expect(error.message).toMatch(/exceeded the rate/);
    const counts = quota.counts();
    expect(counts.signCalls).toBe(5 - refused.length);
    expect(counts.signThrottled).toBe(refused.length);
  });
});
