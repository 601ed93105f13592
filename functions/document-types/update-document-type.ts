import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { updateDocumentType } from '../../shared/routes/document-types.js';
import { patchDocumentType } from '../../shared/services/document-types.js';

export const handler = defineHandler(updateDocumentType, async ({ deps, principal, params, body }) =>
  ok(await patchDocumentType(deps, principal.firmId, params.slug, body)),
);
