import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as documentTypes from '../../shared/routes/document-types.js';
import { patchDocumentType } from '../../shared/services/document-types.js';

export const handler = defineHandler(
  documentTypes.updateDocumentType,
  async ({ deps, principal, params, body }) =>
    ok(await patchDocumentType(deps, principal.firmId, params.slug, body)),
);
