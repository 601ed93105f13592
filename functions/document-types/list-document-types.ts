import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as documentTypes from '../../shared/routes/document-types.js';
import { firmDocumentTypes } from '../../shared/services/document-types.js';

export const handler = defineHandler(documentTypes.listDocumentTypes, async ({ deps, principal }) =>
  ok(await firmDocumentTypes(deps, principal.firmId)),
);
