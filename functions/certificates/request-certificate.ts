import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as certificates from '../../shared/routes/certificates.js';
import { requestCertificate } from '../../shared/services/certificates.js';

export const handler = defineHandler(certificates.requestCertificate, async ({ deps, principal, params }) =>
  ok(await requestCertificate(deps, principal.firmId, params.id)),
);
