import { once } from '../../once.js';

/**
 * A client given directly (tests, ledgerctl) or a factory run on first use (the Lambda composition root).
 *
 * The adapters in this folder reach the SDK only through `await import(...)` and type imports: Lambda bundles
 * leave @aws-sdk/* to the runtime (lib/bundling.ts), and esbuild hoists a static import of an external module
 * to the top of the bundle even when nothing uses it, so a static import would load that client in every
 * function at cold start. This way a function that never signs never loads the KMS client, and so on.
 */
export type ClientSource<C extends object> = C | (() => Promise<C>);

/** The client, created once; a failed creation is retried on the next call. */
export function lazyClient<C extends object>(source: ClientSource<C>): () => Promise<C> {
  return typeof source === 'function' ? once(source) : () => Promise.resolve(source);
}

/** The HTTP status of an SDK service error, if it is one. */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('$metadata' in error)) return undefined;
  const metadata = (error as { $metadata?: { httpStatusCode?: number } }).$metadata;
  return metadata?.httpStatusCode;
}
