import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { verifyCertificate } from '../../shared/routes/certificates.js';
import { verifyCertificate as verify } from '../../shared/services/certificates.js';

export const handler = defineHandler(verifyCertificate, async ({ deps, params }) =>
  ok(await verify(deps, params.certificateId)),
);
