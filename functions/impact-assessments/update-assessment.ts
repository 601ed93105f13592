import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { changeAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(
  impactAssessments.updateImpactAssessment,
  async ({ deps, principal, params, body }) => ok(await changeAssessment(deps, principal, params.id, body)),
);
