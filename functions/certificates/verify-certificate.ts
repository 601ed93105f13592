import { defineHandler } from '../../shared/http/handler.js';
import * as certificates from '../../shared/routes/certificates.js';
import { verifyCertificate } from '../../shared/services/certificates.js';

/**
 * The public JSON check of a certificate. Like the HTML page, never cached: the result is computed now
 * (verifiedAt) and turns invalid the moment the record is tampered with.
 */
export const handler = defineHandler(certificates.verifyCertificate, async ({ deps, params }) => ({
  statusCode: 200,
  headers: { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
  body: await verifyCertificate(deps, params.certificateId),
}));
