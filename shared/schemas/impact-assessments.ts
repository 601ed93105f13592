import * as z from 'zod';
import {
  IA_STATUSES,
  OUTCOME_AREAS,
  RISK_RATINGS,
  type OutcomeArea,
} from '../domain/governance/impact-assessments.js';
import { Timestamp } from './common.js';
import { ActorSummary } from './governance-actors.js';
import { WellFormedString } from './storable-json.js';

const OutcomeAssessment = z.object({
  response: z.string(),
  riskRating: z.enum(RISK_RATINGS),
});

const OutcomeAssessmentPatch = z.strictObject({
  response: WellFormedString.max(20_000).optional(),
  riskRating: z
    .enum(RISK_RATINGS)
    .optional()
    .meta({ description: 'Residual risk to consumers in this area: LOW, MEDIUM, HIGH or CRITICAL' }),
});

const areaDescriptions: Record<OutcomeArea, string> = {
  productsAndServices: 'Consumer Duty outcome: products and services (PRIN 2A.3)',
  priceAndValue: 'Consumer Duty outcome: price and value (PRIN 2A.4)',
  consumerUnderstanding: 'Consumer Duty outcome: consumer understanding (PRIN 2A.5)',
  consumerSupport: 'Consumer Duty outcome: consumer support (PRIN 2A.6)',
};

export const ImpactAssessmentOutcomes = z
  .object(
    Object.fromEntries(
      OUTCOME_AREAS.map((area) => [area, OutcomeAssessment.meta({ description: areaDescriptions[area] })]),
    ) as Record<OutcomeArea, typeof OutcomeAssessment>,
  )
  .meta({
    id: 'ImpactAssessmentOutcomes',
    description:
      'The four Consumer Duty outcomes, each with a response and a risk rating; vulnerable customers are considered within each (FG22/5)',
  });

const OutcomesPatch = z
  .strictObject(
    Object.fromEntries(OUTCOME_AREAS.map((area) => [area, OutcomeAssessmentPatch.optional()])) as Record<
      OutcomeArea,
      z.ZodOptional<typeof OutcomeAssessmentPatch>
    >,
  )
  .meta({
    description:
      'Any of the four areas, each with response and/or riskRating; what is left out keeps its value (on creation: empty response, LOW)',
  });

/** Model identity as jobs declare it in aiContext.model; "#" is refused (it separates the index key). */
const ModelField = WellFormedString.min(1)
  .max(200)
  .regex(/^[^#]+$/, 'must not contain "#"');

const text = (max: number) => WellFormedString.trim().min(1).max(max);

export const CreateImpactAssessmentBody = z
  .strictObject({
    useCase: text(200).meta({ description: 'Short title of the AI use case' }),
    description: text(20_000).meta({ description: 'What the AI does and where it runs' }),
    modelProvider: ModelField.nullable().optional(),
    modelVersion: ModelField.nullable().optional(),
    outcomes: OutcomesPatch.optional(),
  })
  .meta({ id: 'CreateImpactAssessment' });

export const UpdateImpactAssessmentBody = z
  .strictObject({
    useCase: text(200).optional(),
    description: text(20_000).optional(),
    modelProvider: ModelField.nullable().optional(),
    modelVersion: ModelField.nullable().optional(),
    outcomes: OutcomesPatch.optional(),
    status: z.enum(IA_STATUSES).optional().meta({
      description:
        'DRAFT -> PENDING_SIGNOFF; PENDING_SIGNOFF -> APPROVED (signed-in LEAD_REVIEWER or FIRM_ADMIN), REJECTED or back to DRAFT; REJECTED -> DRAFT. SUPERSEDED only through /supersede.',
    }),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'The update is empty' })
  .meta({ id: 'UpdateImpactAssessment' });

export const ImpactAssessment = z
  .object({
    id: z.string().meta({ description: 'ia_<ULID>' }),
    firmId: z.string(),
    useCase: z.string(),
    description: z.string(),
    modelProvider: z.string().nullable(),
    modelVersion: z.string().nullable(),
    templateVersion: z.int().meta({ description: '1, the only template' }),
    outcomes: ImpactAssessmentOutcomes,
    status: z.enum(IA_STATUSES),
    createdById: z.string().nullable().meta({ description: 'User id; null when an API key created it' }),
    createdBy: ActorSummary.nullable(),
    signedOffById: z.string().nullable(),
    signedOffBy: ActorSummary.nullable(),
    signedOffAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    ledgerRecordId: z.string().nullable().meta({ description: 'The IMPACT_ASSESSMENT_APPROVED record' }),
    certificateId: z.string().nullable(),
  })
  .meta({ id: 'ImpactAssessment' });
