import { isIP } from 'node:net';
import { forbiddenAddressReason, isLoopbackAddress, type AddressPolicy } from './address-policy.js';

export interface UrlPolicy {
  /**
   * The embedded development stack accepts http and https URLs on loopback (127.0.0.0/8, ::1, localhost), so
   * a developer can receive webhooks on their own machine. False in AWS: only https to public addresses.
   */
  allowInsecureLoopback: boolean;
}

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export type UrlCheck =
  | {
      ok: true;
      url: URL;
      /** Host name without IPv6 brackets, as DNS or the address check needs it. */
      host: string;
      /** The host when it is an IP address literal (no DNS lookup happens for it). */
      ipLiteral: string | null;
    }
  | { ok: false; reason: string };

/** `localhost` and its subdomains resolve to loopback by definition (RFC 6761). */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Checks a webhook URL on its own (without DNS): scheme, credentials, and a literal or well-known host. The
 * addresses a host name resolves to are checked separately, at registration and on every connection.
 */
export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH)
    return { ok: false, reason: `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return { ok: false, reason: `must use https, not ${url.protocol.replace(/:$/, '')}` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'must not contain credentials (user:password@)' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname.toLowerCase();
  if (host === '') return { ok: false, reason: 'has no host' };
  const ipLiteral = isIP(host) !== 0 ? host : null;
  const loopback = ipLiteral !== null ? isLoopbackAddress(ipLiteral) : isLocalhostName(host);
  const addressPolicy: AddressPolicy = { allowLoopback: policy.allowInsecureLoopback };
  if (loopback && !policy.allowInsecureLoopback)
    return { ok: false, reason: 'points at a loopback host, which is refused' };
  if (ipLiteral !== null) {
    const reason = forbiddenAddressReason(ipLiteral, addressPolicy);
    if (reason !== null) return { ok: false, reason: `points at ${reason}, which is refused` };
  }
  if (url.protocol === 'http:' && !loopback)
    return {
      ok: false,
      reason: policy.allowInsecureLoopback
        ? 'must use https (plain http is accepted only on loopback in the development stack)'
        : 'must use https',
    };
  return { ok: true, url, host, ipLiteral };
}
