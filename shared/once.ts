/**
 * `load` run on the first call and shared by the calls after it; a failed load is tried again on the next call.
 * For what is expensive to create and may be needed by none of an invocation's paths: SDK modules and clients
 * (shared/adapters/aws/lazy-sdk.ts, shared/store/dynamo.ts).
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load();
    loading.catch(() => (loading = undefined));
    return loading;
  };
}
