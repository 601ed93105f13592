import { createHash } from 'node:crypto';
import { presentedCredential } from '../../http/credential-headers.js';

/**
 * The lane an invocation waits in when every local instance is busy (instance-pool.ts, fair-queue.ts): a route
 * invocation waits with the other requests of its credential (API key or bearer token; the caller's address
 * when it has none), a worker invocation with the other invocations of its function. Lanes are served in turn,
 * which models what Lambda's scale-out gives in AWS: one caller's backlog never queues another caller's request.
 * Credentials are digested, never kept in clear.
 */
export function invocationLane(functionName: string, event: unknown): string {
  const { headers, requestContext } = (event ?? {}) as {
    headers?: Record<string, string | undefined>;
    requestContext?: { http?: { sourceIp?: string } };
  };
  if (!headers) return `function:${functionName}`;
  const credential = presentedCredential(headers);
  if (!credential) return `address:${requestContext?.http?.sourceIp ?? 'unknown'}`;
  return `credential:${createHash('sha256').update(credential.value).digest('base64url')}`;
}
