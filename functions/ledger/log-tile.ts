import { defineHandler } from '../../shared/http/handler.js';
import { octets } from '../../shared/http/response.js';
import * as ledger from '../../shared/routes/ledger.js';
import { logTile } from '../../shared/services/log-tiles.js';

/** A tile never changes (a partial one of width W neither); the firm is the credential's, so caches vary by it. */
const IMMUTABLE = {
  'cache-control': 'public, max-age=31536000, immutable',
  vary: 'Authorization, X-Service-Key',
};

export const handler = defineHandler(ledger.getLogTile, async ({ deps, principal, params }) =>
  octets(await logTile(deps, principal.firmId, params.path), IMMUTABLE),
);
