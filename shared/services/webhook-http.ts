import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { forbiddenAddressReason, type AddressPolicy } from '../domain/webhooks/address-policy.js';
import { checkWebhookUrl, type UrlPolicy } from '../domain/webhooks/url-policy.js';

/** A delivery that got no HTTP status back: the refusal or network error is logged as the attempt's error. */
export class DeliveryNetworkError extends Error {}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A DNS lookup for outgoing webhook connections that refuses forbidden addresses. The check happens on the
 * very addresses the socket then connects to, so a host name that resolved to a public address at
 * registration and to 169.254.169.254 now (DNS rebinding) is still refused. Every address of the answer
 * must be allowed, not just the first.
 */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      for (const entry of list) {
        const reason = forbiddenAddressReason(entry.address, policy);
        if (reason !== null) {
          const refused = new DeliveryNetworkError(
            `Refused: ${hostname} resolves to ${entry.address}, ${reason}`,
          ) as NodeJS.ErrnoException;
          refused.code = 'EADDRNOTALLOWED';
          return callback(refused, []);
        }
      }
      if (list.length === 0) return callback(new DeliveryNetworkError(`${hostname} has no address`), []);
      if (options.all) return callback(null, list);
      return callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export interface PostResult {
  statusCode: number;
  /** With `maxResponseBytes`: the answer's Content-Type (lower case, '' when absent) and its body as UTF-8. */
  contentType?: string;
  body?: string;
}

/**
 * POSTs a webhook body: no redirects followed, no connection reuse (every attempt resolves and checks
 * afresh), the whole exchange bounded by `timeoutMs`. Resolves with any HTTP status; rejects with a
 * DeliveryNetworkError when no status came back. The answer's body is not read unless `maxResponseBytes` is
 * given (a witness's cosignature, shared/services/witness-submission.ts): then it is read within the same
 * timeout, and a longer one is a DeliveryNetworkError.
 */
export async function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: { timeoutMs: number; policy: UrlPolicy; maxResponseBytes?: number },
): Promise<PostResult> {
  // The URL passed these rules at registration; check again in case the rules became stricter since.
  const checked = checkWebhookUrl(rawUrl, options.policy);
  if (!checked.ok) throw new DeliveryNetworkError(`Refused: the URL ${checked.reason}`);
  const addressPolicy: AddressPolicy = { allowLoopback: options.policy.allowInsecureLoopback };
  const { url } = checked;
  const requestOptions: RequestOptions = {
    method: 'POST',
    protocol: url.protocol,
    hostname: checked.host,
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
    agent: false,
    lookup: guardedLookup(addressPolicy) as unknown as RequestOptions['lookup'],
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostResult>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, result?: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error)
        reject(error instanceof DeliveryNetworkError ? error : new DeliveryNetworkError(error.message));
      else resolve(result!);
    };
    const request = send(requestOptions, (response) => {
      const statusCode = response.statusCode ?? 0;
      const limit = options.maxResponseBytes;
      if (limit === undefined) {
        // Only the status matters: the body is not read, so a receiver cannot hold the worker with it.
        finish(null, { statusCode });
        response.destroy();
        return;
      }
      const contentType = (response.headers['content-type'] ?? '').toLowerCase();
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          request.destroy(new DeliveryNetworkError(`The answer is longer than ${limit} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', () =>
        finish(null, { statusCode, contentType, body: Buffer.concat(chunks).toString('utf8') }),
      );
      response.on('error', (error) => finish(error));
    });
    const timer = setTimeout(() => {
      request.destroy(new DeliveryNetworkError(`Timed out after ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    // Belt and braces: the address actually connected to (also for IP literals, which skip the lookup).
    request.on('socket', (socket: Socket) => {
      socket.once('connect', () => {
        const remote = socket.remoteAddress ?? '';
        const reason = forbiddenAddressReason(remote, addressPolicy);
        if (reason !== null)
          request.destroy(new DeliveryNetworkError(`Refused: connected address ${remote} is ${reason}`));
      });
    });
    request.on('error', (error) => finish(error));
    request.end(body);
  });
}
