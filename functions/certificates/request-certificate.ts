import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { requestCertificate } from '../../shared/routes/certificates.js';
import { requestCertificate as request } from '../../shared/services/certificates.js';

export const handler = defineHandler(requestCertificate, async ({ deps, principal, params }) =>
  ok(await request(deps, principal.firmId, params.id)),
);
