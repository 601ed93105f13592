import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as certificates from '../../shared/routes/certificates.js';
import { recordCertificateUrl } from '../../shared/services/certificates.js';

export const handler = defineHandler(certificates.getRecordCertificate, async ({ deps, principal, params }) =>
  ok(await recordCertificateUrl(deps, principal.firmId, params.id)),
);
