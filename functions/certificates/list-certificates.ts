import { defineHandler, ok } from '../../shared/http/handler.js';
import { listCertificates } from '../../shared/routes/certificates.js';
import { firmCertificates } from '../../shared/services/certificates.js';

export const handler = defineHandler(listCertificates, async ({ deps, principal }) =>
  ok(await firmCertificates(deps, principal.firmId)),
);
