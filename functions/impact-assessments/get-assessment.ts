import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { getFirmAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(
  impactAssessments.getImpactAssessment,
  async ({ deps, principal, params }) => ok(await getFirmAssessment(deps, principal.firmId, params.id)),
);
