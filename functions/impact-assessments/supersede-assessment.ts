import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { supersedeAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(
  impactAssessments.supersedeImpactAssessment,
  async ({ deps, principal, params }) => ok(await supersedeAssessment(deps, principal, params.id)),
);
