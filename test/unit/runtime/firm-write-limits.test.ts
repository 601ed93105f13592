import { ENV, firmWriteLimits } from '../../../shared/runtime/config.js';

const NAMES = [ENV.firmWriteRatePerSecond, ENV.firmWriteBurst, ENV.firmWriteConcurrency, ENV.runtime];
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
  for (const name of NAMES) delete process.env[name];
});

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const set = (values: Record<string, string>) => Object.assign(process.env, values);

describe('firmWriteLimits (FIRM_WRITE_RATE_PER_S, FIRM_WRITE_BURST)', () => {
  it('is no limit in the embedded stack when unset, and the plan in AWS', () => {
    expect(firmWriteLimits()).toEqual({ kind: 'none' });
    set({ GLS_RUNTIME: 'aws' });
    expect(firmWriteLimits()).toEqual({ kind: 'plan' });
  });

  it('gives every firm the same policy when set, in AWS too; the burst defaults to the rate rounded up', () => {
    set({ FIRM_WRITE_RATE_PER_S: '2.5' });
    expect(firmWriteLimits()).toEqual({ kind: 'fixed', policy: { ratePerSecond: 2.5, burst: 3 } });
    set({ FIRM_WRITE_RATE_PER_S: '0.001', FIRM_WRITE_BURST: '3', GLS_RUNTIME: 'aws' });
    expect(firmWriteLimits()).toEqual({ kind: 'fixed', policy: { ratePerSecond: 0.001, burst: 3 } });
  });

  it('caps the requests in flight with FIRM_WRITE_CONCURRENCY; 0 or unset: no cap', () => {
    set({ FIRM_WRITE_RATE_PER_S: '10', FIRM_WRITE_BURST: '20', FIRM_WRITE_CONCURRENCY: '2' });
    expect(firmWriteLimits()).toEqual({
      kind: 'fixed',
      policy: { ratePerSecond: 10, burst: 20, concurrency: 2 },
    });
    set({ FIRM_WRITE_CONCURRENCY: '0' });
    expect(firmWriteLimits()).toEqual({ kind: 'fixed', policy: { ratePerSecond: 10, burst: 20 } });
    set({ FIRM_WRITE_CONCURRENCY: '1.5' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_CONCURRENCY must be a non-negative integer/);
    delete process.env.FIRM_WRITE_RATE_PER_S;
    set({ FIRM_WRITE_CONCURRENCY: '2', FIRM_WRITE_BURST: '' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_CONCURRENCY needs FIRM_WRITE_RATE_PER_S/);
  });

  it('turns the limit off with a rate of 0, even in AWS', () => {
    set({ FIRM_WRITE_RATE_PER_S: '0', GLS_RUNTIME: 'aws' });
    expect(firmWriteLimits()).toEqual({ kind: 'none' });
  });

  it('fails fast on a value that is not a limit', () => {
    set({ FIRM_WRITE_RATE_PER_S: 'fast' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_RATE_PER_S must be a non-negative number/);
    set({ FIRM_WRITE_RATE_PER_S: '-1' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_RATE_PER_S/);
    set({ FIRM_WRITE_RATE_PER_S: '5', FIRM_WRITE_BURST: '0' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_BURST must be at least 1/);
    set({ FIRM_WRITE_BURST: '1.5' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_BURST/);
    delete process.env[ENV.firmWriteRatePerSecond];
    set({ FIRM_WRITE_BURST: '5' });
    expect(() => firmWriteLimits()).toThrow(/FIRM_WRITE_BURST needs FIRM_WRITE_RATE_PER_S/);
  });
});
