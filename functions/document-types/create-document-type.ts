import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as documentTypes from '../../shared/routes/document-types.js';
import { addDocumentType } from '../../shared/services/document-types.js';

export const handler = defineHandler(documentTypes.createDocumentType, async ({ deps, principal, body }) =>
  created(await addDocumentType(deps, principal.firmId, body)),
);
