import { defineHandler } from '../../shared/http/handler.js';
import { created } from '../../shared/http/response.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { createAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(
  impactAssessments.createImpactAssessment,
  async ({ deps, principal, body }) => created(await createAssessment(deps, principal, body)),
);
