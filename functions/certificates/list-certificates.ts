import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { listCertificates } from '../../shared/routes/certificates.js';
import { firmCertificates } from '../../shared/services/certificates.js';

export const handler = defineHandler(listCertificates, async ({ deps, principal }) =>
  ok(await firmCertificates(deps, principal.firmId)),
);
