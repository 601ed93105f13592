import { createHmac } from 'node:crypto';
import { forbiddenAddressReason, mappedIpv4 } from '../../../shared/domain/webhooks/address-policy.js';
import {
  DEFAULT_RETRY_SCHEDULE,
  envelopeOf,
  generateWebhookSecret,
  retryDelaySeconds,
  signatureHeader,
} from '../../../shared/domain/webhooks/delivery.js';
import {
  isSubscribableEvent,
  SUBSCRIBABLE_EVENTS,
  unsubscribableReason,
} from '../../../shared/domain/webhooks/events.js';
import { checkWebhookUrl } from '../../../shared/domain/webhooks/url-policy.js';

const production = { allowLoopback: false };
const development = { allowLoopback: true };

describe('webhook address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['169.254.169.254', 'metadata'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['fc00::1', 'private'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['0:0:0:0:0:ffff:0a00:0001', 'private'],
    ['64:ff9b::a9fe:a9fe', 'tunnelling'],
    ['2002:a9fe:a9fe::1', 'tunnelling'],
    ['::127.0.0.1', 'unspecified'],
    // Issue 12 part 8: only global unicast IPv6 (2000::/3), less its special blocks.
    ['::ffff:0:a9fe:a9fe', 'not a global unicast'], // IPv4-translated (SIIT) link-local
    ['::ffff:0:7f00:1', 'not a global unicast'], // IPv4-translated loopback
    ['64:ff9b:1::a9fe:a9fe', 'tunnelling'], // local-use NAT64
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'tunnelling'], // Teredo
    ['2001:2::1', 'tunnelling'], // benchmarking, in the IETF special-purpose block
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['fd12:3456::1', 'private'], // unique local
    ['febf::1', 'link-local'],
    ['ff0e::1', 'multicast'],
    ['100::1', 'reserved'], // discard-only
    ['4000::1', 'not a global unicast'], // reserved space outside 2000::/3
    ['1::1', 'not a global unicast'],
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
  ])('refuses %s in production (%s)', (address, why) => {
    const reason = forbiddenAddressReason(address, production);
    expect(reason).not.toBeNull();
    expect(reason).toContain(why);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4009:81f::200e',
    '::ffff:8.8.8.8',
  ])('allows the public address %s', (address) => {
    expect(forbiddenAddressReason(address, production)).toBeNull();
  });

  it('allows loopback only under the development flag, and nothing else private with it', () => {
    expect(forbiddenAddressReason('127.0.0.1', development)).toBeNull();
    expect(forbiddenAddressReason('::1', development)).toBeNull();
    expect(forbiddenAddressReason('::ffff:127.0.0.1', development)).toBeNull();
    for (const address of ['169.254.169.254', '10.0.0.1', 'fd00:ec2::254', '192.168.0.10'])
      expect(forbiddenAddressReason(address, development)).not.toBeNull();
  });

  it('refuses anything that is not an IP address', () => {
    expect(forbiddenAddressReason('localhost', development)).toBe('not an IP address');
  });

  it('reads IPv4-mapped IPv6 in any spelling', () => {
    expect(mappedIpv4('::ffff:7f00:1')).toBe('127.0.0.1');
    expect(mappedIpv4('::FFFF:10.0.0.1')).toBe('10.0.0.1');
    expect(mappedIpv4('2606:4700::1')).toBeNull();
    expect(mappedIpv4('10.0.0.1')).toBeNull();
  });
});

describe('webhook URL policy', () => {
  const prod = { allowInsecureLoopback: false };
  const dev = { allowInsecureLoopback: true };
  const reason = (url: string, policy = prod) => {
    const checked = checkWebhookUrl(url, policy);
    return checked.ok ? null : checked.reason;
  };

  it('accepts https on a public host or address', () => {
    expect(reason('https://hooks.example.com/ledger?x=1')).toBeNull();
    expect(reason('https://93.184.216.34:8443/in')).toBeNull();
    expect(reason('https://[2606:4700:4700::1111]/in')).toBeNull();
  });

  it('refuses plain http in production, even to a public host', () => {
    expect(reason('http://hooks.example.com/in')).toMatch(/must use https/);
    expect(reason('http://hooks.example.com/in', dev)).toMatch(/only on loopback/);
  });

  it('refuses loopback in production, by address or by name, http or https', () => {
    for (const url of [
      'https://127.0.0.1/in',
      'http://127.0.0.1:8080/in',
      'https://localhost/in',
      'https://api.localhost/in',
      'https://[::1]/in',
      'https://[::ffff:127.0.0.1]/in',
      'https://2130706433/in', // 127.0.0.1 as one number
      'https://0x7f.1/in', // 127.0.0.1 in hex shorthand
    ])
      expect(reason(url)).toMatch(/loopback/);
  });

  it('accepts http and https on loopback in the development stack', () => {
    expect(reason('http://127.0.0.1:4567/hook', dev)).toBeNull();
    expect(reason('http://localhost:4567/hook', dev)).toBeNull();
    expect(reason('https://[::1]:4567/hook', dev)).toBeNull();
  });

  it('refuses private, link-local and metadata addresses in every mode', () => {
    for (const policy of [prod, dev]) {
      expect(reason('https://169.254.169.254/latest/meta-data/', policy)).toMatch(/metadata/);
      expect(reason('http://169.254.169.254/', policy)).toMatch(/metadata/);
      expect(reason('https://10.0.0.5/in', policy)).toMatch(/private/);
      expect(reason('https://[fd00:ec2::254]/in', policy)).toMatch(/private/);
      expect(reason('https://[fe80::1]/in', policy)).toMatch(/link-local/);
      expect(reason('https://[::ffff:192.168.0.1]/in', policy)).toMatch(/private/);
    }
  });

  it('refuses other schemes, credentials and non-URLs', () => {
    expect(reason('ftp://hooks.example.com/')).toMatch(/must use https/);
    expect(reason('file:///etc/passwd')).toMatch(/must use https/);
    expect(reason('https://user:pw@hooks.example.com/')).toMatch(/credentials/);
    expect(reason('hooks.example.com/in')).toMatch(/not an absolute URL/);
    expect(reason(`https://example.com/${'a'.repeat(2100)}`)).toMatch(/longer than/);
  });
});

describe('webhook signature', () => {
  it('is sha256=<hex HMAC-SHA256 of the raw body keyed with the secret>, checked independently', () => {
    const secret = 'whsec_test';
    const body = '{"id":"rec_1","sequenceNumber":3}';
    const expected = createHmac('sha256', secret).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signatureHeader(secret, body)).toBe(`sha256=${expected}`);
    expect(signatureHeader('whsec_other', body)).not.toBe(`sha256=${expected}`);
    expect(signatureHeader(secret, `${body} `)).not.toBe(`sha256=${expected}`);
  });

  it('generates distinct 256-bit secrets, whsec_ + standard base64 (the Standard Webhooks form)', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it('builds the flat envelope with exactly the seven fields of the spec', () => {
    const envelope = envelopeOf({
      id: 'rec_1',
      firmId: 'firm_1',
      sequenceNumber: 4,
      eventType: 'DOCUMENT_SUBMITTED',
      timestamp: '2026-01-01T00:00:00.000Z',
      documentHash: 'a'.repeat(64),
      chainHash: 'b'.repeat(64),
      ...({ actorName: 'not delivered' } as object),
    });
    expect(Object.keys(envelope)).toEqual([
      'id',
      'firmId',
      'sequenceNumber',
      'eventType',
      'timestamp',
      'documentHash',
      'chainHash',
    ]);
  });
});

describe('webhook retry schedule', () => {
  it('doubles from the base up to the cap, and the production one spans about 45 minutes', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelaySeconds(attempt, DEFAULT_RETRY_SCHEDULE));
    expect(delays).toEqual([30, 60, 120, 240, 480, 900, 900]);
    expect(DEFAULT_RETRY_SCHEDULE.maxAttempts).toBe(delays.length + 1);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(2730);
  });
});

describe('subscribable webhook events', () => {
  it("are exactly the spec's twelve names and the tamper watch's (issue 32)", () => {
    expect([...SUBSCRIBABLE_EVENTS].sort()).toEqual(
      [
        'job.submitted',
        'review.started',
        'review.completed',
        'document.approved',
        'document.modified',
        'document.rejected',
        'chain.repaired',
        'sla.breached',
        'impact-assessment.approved',
        'incident.logged',
        'incident.resolved',
        'firm-settings.updated',
        'ledger.tampering-detected',
      ].sort(),
    );
  });

  it('explains why a ledger event type or an unknown name is refused', () => {
    expect(isSubscribableEvent('chain.repaired')).toBe(true);
    expect(isSubscribableEvent('CHAIN_VERIFIED')).toBe(false);
    expect(unsubscribableReason('CHAIN_VERIFIED')).toMatch(/without a webhook name/);
    expect(unsubscribableReason('CHAIN_REPAIRED')).toMatch(/"chain.repaired"/);
    expect(unsubscribableReason('chain.verified')).toMatch(/not a webhook event/);
  });
});
