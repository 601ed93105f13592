import { defineHandler } from '../../shared/http/handler.js';
import { arrayAnswer } from '../../shared/http/link.js';
import * as impactAssessments from '../../shared/routes/impact-assessments.js';
import { listFirmAssessments } from '../../shared/services/impact-assessments.js';

export const handler = defineHandler(
  impactAssessments.listImpactAssessments,
  async ({ deps, principal, query, event }) =>
    arrayAnswer(event, await listFirmAssessments(deps, principal.firmId, query)),
);
