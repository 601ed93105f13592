import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as certificates from '../../shared/routes/certificates.js';
import { firmCertificates } from '../../shared/services/certificates.js';

export const handler = defineHandler(certificates.listCertificates, async ({ deps, principal }) =>
  ok(await firmCertificates(deps, principal.firmId)),
);
