import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { listImpactAssessments } from '../../shared/routes/impact-assessments.js';
import { listFirmAssessments } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(listImpactAssessments, async ({ deps, principal }) =>
  ok(await listFirmAssessments(deps, principal.firmId)),
);
