import { defineHandler } from '../../shared/http/handler.js';
import { ok } from '../../shared/http/response.js';
import { updateImpactAssessment } from '../../shared/routes/impact-assessments.js';
import { changeAssessment } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(updateImpactAssessment, async ({ deps, principal, params, body }) =>
  ok(await changeAssessment(deps, principal, params.id, body)),
);
