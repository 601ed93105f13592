import { defineHandler, ok } from '../../shared/http/handler.js';
import { listImpactAssessments } from '../../shared/routes/impact-assessments.js';
import { listFirmAssessments } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(listImpactAssessments, async ({ deps, principal }) =>
  ok(await listFirmAssessments(deps, principal.firmId)),
);
