import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { buildOpenApi } from '../../shared/openapi.js';
import * as platform from '../../shared/routes/platform.js';

let document: unknown;

/** Public and the same for every caller until the next deployment: caches may keep it for five minutes. */
export const handler = defineHandler(platform.openapi, async () => ({
  ...ok((document ??= buildOpenApi())),
  headers: { 'cache-control': 'public, max-age=300' },
}));
