import {
  renderVerificationPage,
  VERIFICATION_PAGE_HEADERS,
} from '../../shared/domain/certificates/verify-page.js';
import { NotFoundError } from '../../shared/errors.js';
import { defineHandler } from '../../shared/http/handler.js';
import * as certificates from '../../shared/routes/certificates.js';
import { verifyCertificate } from '../../shared/services/certificates.js';

/** The page a QR code opens: the checks of GET /v1/verify/{certificateId}, as HTML (an unknown id is a 404 page). */
export const handler = defineHandler(certificates.verifyCertificatePage, async ({ deps, params }) => {
  try {
    const outcome = await verifyCertificate(deps, params.certificateId);
    return { statusCode: 200, headers: VERIFICATION_PAGE_HEADERS, body: renderVerificationPage(outcome) };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return { statusCode: 404, headers: VERIFICATION_PAGE_HEADERS, body: renderVerificationPage(null) };
  }
});
