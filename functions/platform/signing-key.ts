import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { publishedSigningKey } from '../../shared/services/signing-key.js';
import * as platform from '../../shared/routes/platform.js';

export const handler = defineHandler(platform.signingKey, async ({ deps }) => ({
  ...ok(await publishedSigningKey(deps)),
  headers: { 'cache-control': 'public, max-age=300' },
}));
