import { defineHandler, ok } from '../../shared/http/handler.js';
import { requestCertificate } from '../../shared/routes/certificates.js';
import { requestCertificate as request } from '../../shared/services/certificates.js';

export const handler = defineHandler(requestCertificate, async ({ deps, principal, params }) =>
  ok(await request(deps, principal.firmId, params.id)),
);
