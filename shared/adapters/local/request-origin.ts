import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The origin a browser used to reach the local stack (issue 33): the console's config.json and the dev issuer's
 * discovery, redirect and logout addresses are built from it, so the console and its sign-in work alike at
 * `http://localhost:<port>`, `http://127.0.0.1:<port>`, a host name on the network or PUBLIC_BASE_URL.
 *
 * It is `http://<Host header>`, or PUBLIC_BASE_URL's own origin (its scheme: a TLS proxy in front) when the Host
 * is PUBLIC_BASE_URL's host. Only a Host that no other site can make a browser send is trusted: an IP address,
 * `localhost` and `*.localhost`, this machine's host name, PUBLIC_BASE_URL's host and the names in ALLOWED_HOSTS.
 * Any other name answers null and the caller refuses: a page of another site whose DNS name was rebound to this
 * machine would otherwise sign a user in by e-mail alone (the dev issuer asks no password) and receive the
 * authorization code on its own origin.
 */
export interface OriginPolicy {
  /** PUBLIC_BASE_URL as the developer set it (not the server's default), if any. */
  publicBaseUrl?: string | undefined;
  /** This machine's host name (os.hostname()): trusted, with or without a `.local` suffix. */
  hostname: string;
  /** More trusted names (ALLOWED_HOSTS, comma-separated), without port. */
  allowedHosts: readonly string[];
}

export type OriginOf = (request: IncomingMessage) => string | null;

/** Splits ALLOWED_HOSTS: names separated by commas or spaces, lower-cased, empty ones dropped. */
export function parseAllowedHosts(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
}

export function requestOrigin(policy: OriginPolicy): OriginOf {
  const publicBase = policy.publicBaseUrl ? new URL(policy.publicBaseUrl) : null;
  const machine = policy.hostname.toLowerCase().replace(/\.local$/, '');
  const named = new Set([
    ...policy.allowedHosts.map((name) => name.toLowerCase()),
    machine,
    `${machine}.local`,
    ...(publicBase ? [publicBase.hostname] : []),
  ]);
  const trusted = (hostname: string) =>
    isIP(hostname.replace(/^\[(.*)\]$/, '$1')) !== 0 ||
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    named.has(hostname);
  return (request) => {
    const host = request.headers.host?.toLowerCase();
    if (!host) return null;
    let url: URL;
    try {
      url = new URL(`http://${host}`);
    } catch {
      return null;
    }
    // Anything beyond host[:port] (a path, credentials) is not a Host header a browser sends.
    if (url.host !== host && `${url.host}:80` !== host) return null;
    if (!trusted(url.hostname)) return null;
    if (publicBase && publicBase.host === url.host) return publicBase.origin;
    return url.origin;
  };
}
