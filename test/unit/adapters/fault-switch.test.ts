import { FaultSwitch, parseFaultRequest } from '../../../shared/adapters/local/fault-switch.js';
import {
  FaultyObjectStore,
  FaultyQueue,
  FaultySigner,
} from '../../../shared/adapters/local/faulty-adapters.js';
import { isTransientFault } from '../../../shared/adapters/transient-faults.js';
import type { ObjectStore } from '../../../shared/ports/object-store.js';
import type { Queue } from '../../../shared/ports/queue.js';
import type { Signer } from '../../../shared/ports/signer.js';

const signer: Signer = {
  keyId: 'local:0',
  sign: async () => new Uint8Array([7]),
  publicKeySpki: async () => new Uint8Array([1]),
};

describe('the local fault switch', () => {
  it('holds a fault for its time, shared by every thread attached to its buffer, until cleared', () => {
    const faults = FaultSwitch.create();
    const attached = FaultSwitch.attach(faults.buffer);
    faults.set('objects', 'stall', 1_000, 10_000);
    expect(attached.active('objects', 10_500)).toEqual({ mode: 'stall', until: 11_000 });
    expect(attached.active('objects', 11_000)).toBeUndefined();
    expect(attached.active('signer', 10_500)).toBeUndefined();
    faults.set('queue', 'fail', 60_000);
    expect(Object.keys(attached.snapshot())).toEqual(['queue']);
    attached.clear();
    expect(faults.snapshot()).toEqual({});
  });

  it('fails the signer with KMS’s errors in turn, each a transient fault', async () => {
    const faults = FaultSwitch.create();
    faults.set('signer', 'fail', 60_000);
    const faulty = new FaultySigner(signer, faults);
    const names = [];
    for (let i = 0; i < 3; i++) {
      const error = await faulty.sign(new Uint8Array()).catch((e: unknown) => e);
      expect(isTransientFault(error)).toBe(true);
      names.push((error as Error).name);
    }
    expect(names.sort()).toEqual([
      'DependencyTimeoutException',
      'KMSInternalException',
      'KMSInvalidStateException',
    ]);
  });

  it('fails the object store with S3 5xx and the queue with SQS errors', async () => {
    const faults = FaultSwitch.create();
    faults.set('objects', 'fail', 60_000);
    faults.set('queue', 'fail', 60_000);
    const store = new FaultyObjectStore({ put: async () => undefined } as unknown as ObjectStore, faults);
    const put = await store
      .put('immutable', 'k', new Uint8Array(), 'application/json')
      .catch((e: unknown) => e);
    expect(put).toMatchObject({ $fault: 'server' });
    expect(
      (put as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode,
    ).toBeGreaterThanOrEqual(500);
    const queue = new FaultyQueue({ send: async () => undefined } as Queue, faults);
    const sent = await queue.send('webhooks', {}).catch((e: unknown) => e);
    expect(['InternalFailure', 'ServiceUnavailable']).toContain((sent as Error).name);
  });

  it('stalls a call until the fault ends, then runs it; a cleared fault lets it go at once', async () => {
    const faults = FaultSwitch.create();
    faults.set('signer', 'stall', 150);
    const started = Date.now();
    expect(await new FaultySigner(signer, faults).sign(new Uint8Array())).toEqual(new Uint8Array([7]));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    faults.set('signer', 'stall', 60_000);
    const stalled = new FaultySigner(signer, faults).sign(new Uint8Array());
    faults.clear();
    expect(await stalled).toEqual(new Uint8Array([7]));
  });

  it('accepts only a known dependency, mode and duration', () => {
    expect(parseFaultRequest({ dependency: 'queue', mode: 'stall', forMs: 2_000 })).toEqual({
      dependency: 'queue',
      mode: 'stall',
      forMs: 2_000,
    });
    expect(parseFaultRequest({ dependency: 'database', mode: 'fail', forMs: 1 })).toHaveProperty('error');
    expect(parseFaultRequest({ dependency: 'queue', mode: 'slow', forMs: 1 })).toHaveProperty('error');
    expect(parseFaultRequest({ dependency: 'queue', mode: 'fail', forMs: 0 })).toHaveProperty('error');
    expect(parseFaultRequest([])).toHaveProperty('error');
  });
});
