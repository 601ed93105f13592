import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { buildOpenApi } from '../../shared/openapi.js';
import { openapi } from '../../shared/routes/platform.js';

let document: unknown;

export const handler = defineHandler(openapi, async () => ok((document ??= buildOpenApi())));
