import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as certificates from '../../shared/routes/certificates.js';
import { findCertificate } from '../../shared/services/certificates.js';

export const handler = defineHandler(certificates.getCertificate, async ({ deps, principal, params }) =>
  ok(await findCertificate(deps, principal.firmId, params.id)),
);
