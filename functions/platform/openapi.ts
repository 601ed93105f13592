import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { buildOpenApi } from '../../shared/openapi.js';
import * as platform from '../../shared/routes/platform.js';

let document: unknown;

export const handler = defineHandler(platform.openapi, async () => ok((document ??= buildOpenApi())));
