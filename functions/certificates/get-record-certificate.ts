import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { getRecordCertificate } from '../../shared/routes/certificates.js';
import { recordCertificateUrl } from '../../shared/services/certificates.js';

export const handler = defineHandler(getRecordCertificate, async ({ deps, principal, params }) =>
  ok(await recordCertificateUrl(deps, principal.firmId, params.id)),
);
