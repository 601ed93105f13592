import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as certificates from '../../shared/routes/certificates.js';
import { verifyCertificate } from '../../shared/services/certificates.js';

export const handler = defineHandler(certificates.verifyCertificate, async ({ deps, params }) =>
  ok(await verifyCertificate(deps, params.certificateId)),
);
