import { invocationLane } from '../../../shared/adapters/local/invocation-lane.js';

const request = (headers: Record<string, string>, sourceIp = '10.0.0.1') => ({
  headers,
  requestContext: { http: { sourceIp } },
});

describe('invocationLane', () => {
  it('puts a route invocation in the lane of its credential, digested', () => {
    const key = invocationLane('incidents-create', request({ 'x-service-key': 'gls_secret_1' }));
    expect(key).toMatch(/^credential:[A-Za-z0-9_-]{43}$/);
    expect(key).not.toContain('gls_secret_1');
    // The same credential on another route and from another address shares the lane; another credential not.
    expect(invocationLane('records-list', request({ 'x-service-key': 'gls_secret_1' }, '10.0.0.2'))).toBe(
      key,
    );
    expect(invocationLane('incidents-create', request({ 'x-service-key': 'gls_secret_2' }))).not.toBe(key);
    expect(invocationLane('incidents-create', request({ authorization: 'Bearer t' }))).toMatch(
      /^credential:/,
    );
  });

  it('puts an anonymous request in the lane of its address, and a worker invocation in its function', () => {
    expect(invocationLane('verify-public', request({}, '192.0.2.7'))).toBe('address:192.0.2.7');
    expect(invocationLane('archive', { Records: [] })).toBe('function:archive');
    expect(invocationLane('reconcile', { source: 'local.timer' })).toBe('function:reconcile');
  });
});
