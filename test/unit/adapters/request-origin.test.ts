import type { IncomingMessage } from 'node:http';
import { parseAllowedHosts, requestOrigin } from '../../../shared/adapters/local/request-origin.js';

const asked = (host: string | undefined) =>
  ({ headers: host === undefined ? {} : { host } }) as IncomingMessage;

describe('the origin a browser used to reach the local stack', () => {
  const originOf = requestOrigin({
    hostname: 'Dev-Box',
    allowedHosts: parseAllowedHosts('ledger.lan, other.example  '),
  });

  it.each([
    ['localhost:3000', 'http://localhost:3000'],
    ['127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['[::1]:3000', 'http://[::1]:3000'],
    ['192.168.1.20:3000', 'http://192.168.1.20:3000'],
    ['console.localhost:3000', 'http://console.localhost:3000'],
    ['dev-box:3000', 'http://dev-box:3000'],
    ['DEV-BOX.local:3000', 'http://dev-box.local:3000'],
    ['ledger.lan:8080', 'http://ledger.lan:8080'],
    ['ledger.lan', 'http://ledger.lan'],
  ])('trusts %s as %s', (host, origin) => {
    expect(originOf(asked(host))).toBe(origin);
  });

  it.each([
    ['a name another site could rebind to this machine', 'evil.example:3000'],
    ['a name that only ends like a trusted one', 'notledger.lan:3000'],
    ['no Host at all', undefined],
    ['a Host with a path', 'localhost:3000/elsewhere'],
    ['a Host with credentials', 'evil.example@localhost:3000'],
    ['a malformed Host', 'local host:3000'],
  ])('refuses %s', (_name, host) => {
    expect(originOf(asked(host))).toBeNull();
  });

  it("answers PUBLIC_BASE_URL's own origin (its scheme: a TLS proxy in front) for its host", () => {
    const behindProxy = requestOrigin({
      publicBaseUrl: 'https://ledger.example.org/',
      hostname: 'dev-box',
      allowedHosts: [],
    });
    expect(behindProxy(asked('ledger.example.org'))).toBe('https://ledger.example.org');
    expect(behindProxy(asked('ledger.example.org:3000'))).toBe('http://ledger.example.org:3000');
    expect(behindProxy(asked('localhost:3000'))).toBe('http://localhost:3000');
    expect(behindProxy(asked('example.org'))).toBeNull();
  });
});
