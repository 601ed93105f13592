import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { supersedeImpactAssessment } from '../../shared/routes/impact-assessments.js';
import { supersedeAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(supersedeImpactAssessment, async ({ deps, principal, params }) =>
  ok(await supersedeAssessment(deps, principal, params.id)),
);
