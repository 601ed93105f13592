import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeader } from '../../../shared/domain/webhooks/delivery.js';
import {
  signingSecrets,
  standardSignature,
  standardWebhookHeaders,
  standardWebhookKey,
  unixSeconds,
} from '../../../shared/domain/webhooks/standard-webhooks.js';

const body = '{"id":"rec_01","firmId":"firm_01","sequenceNumber":7,"eventType":"FIRM_SETTINGS_UPDATED"}';
const id = 'whd_01JDELIVERY0000000000000';
const now = () => unixSeconds(new Date());

describe('Standard Webhooks signing, checked with the reference library (standardwebhooks)', () => {
  it('verifies a delivery signed with a newly generated secret, exactly as the API returns it', () => {
    const secret = generateWebhookSecret();
    const headers = standardWebhookHeaders([secret], id, now(), body);
    expect(headers['webhook-id']).toBe(id);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('is v1,<base64 HMAC-SHA256 of "id.timestamp.body"> keyed with the decoded secret, computed independently', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const expected = createHmac('sha256', key).update(`${id}.1700000000.${body}`).digest('base64');
    expect(standardSignature(secret, id, 1700000000, body)).toBe(`v1,${expected}`);
    expect(standardWebhookKey(secret)).toEqual(key);
  });

  it('rejects a changed body, id or timestamp, another secret, and a timestamp outside 5 minutes', () => {
    const secret = generateWebhookSecret();
    const t = now();
    const headers = standardWebhookHeaders([secret], id, t, body);
    const wh = new Webhook(secret);
    expect(() => wh.verify(`${body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(body, { ...headers, 'webhook-id': `${id}x` })).toThrow(WebhookVerificationError);
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(t + 1) })).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(generateWebhookSecret()).verify(body, headers)).toThrow(
      WebhookVerificationError,
    );
    const old = standardWebhookHeaders([secret], id, t - 301, body);
    expect(() => wh.verify(body, old)).toThrow(/too old/);
  });

  it('signs once per secret, newest first, space-separated; each secret verifies on its own', () => {
    const [fresh, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const headers = standardWebhookHeaders([fresh, previous], id, now(), body);
    const parts = headers['webhook-signature']!.split(' ');
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(standardSignature(fresh, id, Number(headers['webhook-timestamp']), body));
    expect(new Webhook(fresh).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => standardWebhookHeaders([], id, now(), body)).toThrow();
  });

  it('signs an endpoint whose secret predates Standard Webhooks (base64url) with its 32 key bytes', () => {
    const key = Buffer.from('fb'.repeat(32), 'hex'); // encodes to "-_" characters in base64url
    const legacy = `whsec_${key.toString('base64url')}`;
    expect(legacy).toMatch(/[-_]/);
    // The library refuses the legacy string as it is ...
    expect(() => new Webhook(legacy)).toThrow();
    // ... and verifies with the same key re-encoded as standard base64, which the docs tell receivers to do.
    const converted = `whsec_${key.toString('base64')}`;
    const headers = standardWebhookHeaders([legacy], id, now(), body);
    expect(new Webhook(converted).verify(body, headers)).toEqual(JSON.parse(body));
    // X-Service-Signature stays keyed with the whole secret string, unchanged.
    expect(signatureHeader(legacy, body)).toBe(
      `sha256=${createHmac('sha256', legacy).update(body).digest('hex')}`,
    );
  });

  it('keeps the previous secret only until its overlap window ends', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const endpoint = {
      secret: 'whsec_new',
      previousSecret: 'whsec_old',
      previousSecretExpiresAt: '2026-01-01T00:00:01.000Z',
    };
    expect(signingSecrets(endpoint, at)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, new Date('2026-01-01T00:00:01.000Z'))).toEqual(['whsec_new']);
    expect(signingSecrets({ secret: 'whsec_new' }, at)).toEqual(['whsec_new']);
    expect(signingSecrets({ ...endpoint, previousSecretExpiresAt: null }, at)).toEqual(['whsec_new']);
  });
});
