import { defineHandler, ok } from '../../shared/http/handler.js';
import { listDocumentTypes } from '../../shared/routes/document-types.js';
import { firmDocumentTypes } from '../../shared/services/document-types.js';

export const handler = defineHandler(listDocumentTypes, async ({ deps, principal }) =>
  ok(await firmDocumentTypes(deps, principal.firmId)),
);
