import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

/** A Lambda handler as the embedded stack calls it: an event and a context, a promised result. */
export type LocalHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * Loads route and worker handler modules (`functions/...`, named as in the route and worker tables) from the
 * TypeScript sources under `root`, each once per thread, as a Lambda loads its bundle once per execution
 * environment; a module that failed to load is tried again on the next call. Used by the server's own thread
 * (LOCAL_INSTANCES=0, bin/local.ts) and by every instance (lambda-instance.ts).
 */
export function handlerModules(root: string): (module: string) => Promise<LocalHandler> {
  const handlers = new Map<string, Promise<LocalHandler>>();
  return (module) => {
    let handler = handlers.get(module);
    if (!handler) {
      handler = import(pathToFileURL(join(root, `${module}.ts`)).href).then(
        (loaded: { handler: LocalHandler }) => loaded.handler,
      );
      handler.catch(() => handlers.delete(module));
      handlers.set(module, handler);
    }
    return handler;
  };
}
