import { defineHandler } from '../../shared/http/handler.js';
import { arrayAnswer } from '../../shared/http/link.js';
import * as certificates from '../../shared/routes/certificates.js';
import { firmCertificates } from '../../shared/services/certificates.js';

export const handler = defineHandler(
  certificates.listCertificates,
  async ({ deps, principal, query, event }) =>
    arrayAnswer(event, await firmCertificates(deps, principal.firmId, query)),
);
