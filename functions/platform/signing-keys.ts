import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { signingKeyHistory } from '../../shared/services/key-history.js';
import * as platform from '../../shared/routes/platform.js';

export const handler = defineHandler(platform.signingKeys, async ({ deps }) => ({
  ...ok(await signingKeyHistory(deps)),
  headers: { 'cache-control': 'public, max-age=300' },
}));
