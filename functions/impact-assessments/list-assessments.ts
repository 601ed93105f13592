import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { listFirmAssessments } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(impactAssessments.listImpactAssessments, async ({ deps, principal }) =>
  ok(await listFirmAssessments(deps, principal.firmId)),
);
