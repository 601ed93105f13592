import { defineHandler, ok } from '../../shared/http/handler.js';
import { publishedSigningKey } from '../../shared/services/signing-key.js';
import { signingKey } from '../../shared/routes/platform.js';

export const handler = defineHandler(signingKey, async ({ deps }) => ({
  ...ok(await publishedSigningKey(deps)),
  headers: { 'cache-control': 'public, max-age=300' },
}));
