import * as z from 'zod';
import {
  DEFAULT_UPLOAD_CONTENT_TYPE,
  FORBIDDEN_FILENAME_CHARS,
  MAX_FILENAME_LENGTH,
  UPLOAD_CONTENT_TYPES,
} from '../domain/review/uploads.js';
import { JOB_OUTCOMES, JOB_PRIORITIES, JOB_STATUSES, VULNERABILITY_FLAGS } from '../domain/review/jobs.js';
import { CHECKLIST_ANSWERS, REVIEW_ACTIONS } from '../domain/review/workflow.js';
import { ROLES } from '../domain/auth/principal.js';
import { PageQuery, Timestamp, paged } from './common.js';
import { uniqueArray } from './unique-items.js';
import {
  STORABLE_JSON_DESCRIPTION,
  StorableJsonObject,
  storableObject,
  WellFormedString,
} from './storable-json.js';

export const CreateUploadBody = z
  .strictObject({
    filename: WellFormedString.min(1)
      .max(MAX_FILENAME_LENGTH)
      .refine((name) => !FORBIDDEN_FILENAME_CHARS.test(name), {
        message: 'filename must not contain path separators or control characters',
      })
      .meta({
        description:
          'The document\'s file name, 1 to 200 characters without "/", "\\" or control characters. It ends the object key, with characters outside [A-Za-z0-9._-] replaced by "_".',
      }),
    contentType: z.enum(UPLOAD_CONTENT_TYPES).default(DEFAULT_UPLOAD_CONTENT_TYPE).meta({
      description: 'The Content-Type the PUT must carry: PDF (default), Word (.docx, .doc) or plain text',
    }),
  })
  .meta({ id: 'CreateUploadRequest' });

export const Upload = z
  .object({
    uploadUrl: z.url().meta({
      description:
        'Presigned URL: PUT the raw bytes here, once, before expiresAt, with the Content-Type requested (signed: another type is 403 SignatureDoesNotMatch). Send the headers of uploadHeaders: with If-None-Match: * a second PUT is 412 PreconditionFailed.',
    }),
    uploadHeaders: z.record(z.string(), z.string()).meta({
      description:
        'Headers the PUT should carry: {"Content-Type": contentType (required, signed into uploadUrl), "If-None-Match": "*" (advised: makes the URL single-use in S3)}',
    }),
    documentKey: z.string().meta({
      description: 'uploads/<firmId>/<uploadId>/<filename>: pass it to POST /v1/review/jobs',
    }),
    expiresAt: Timestamp.meta({ description: 'The URL is refused after this instant (15 minutes)' }),
    maxBytes: z.int().meta({ description: 'Largest accepted document, in bytes (25 MiB)' }),
    contentType: z.enum(UPLOAD_CONTENT_TYPES),
  })
  .meta({ id: 'Upload' });

const AiModel = z
  .object({
    provider: WellFormedString.min(1).max(200),
    version: WellFormedString.min(1).max(200),
  })
  .meta({ description: 'The AI model that produced the document: the impact-assessment gate matches on it' });

export const AiContext = storableObject(z.looseObject({ model: AiModel.optional() })).meta({
  id: 'AiContext',
  description:
    'AI lineage: model identity (model: {provider, version}), inputs, outputs, decision factors, confidence, guardrails. Members other than model are kept as supplied, as long as they are storable JSON (see factFindSummary).',
});

const ClientSegments = z.record(WellFormedString.min(1).max(100), WellFormedString.max(200)).meta({
  description:
    'Anonymised categorical labels (for example ageBand, riskProfile, productType): plain strings only',
});

export const SubmitJobBody = z
  .strictObject({
    documentKey: WellFormedString.min(1).max(1000).meta({
      description: 'documentKey from POST /v1/review/uploads; the PUT must have completed. Usable once.',
    }),
    documentType: WellFormedString.min(1)
      .max(200)
      .meta({ description: 'A document type slug the firm knows' }),
    clientReference: WellFormedString.min(1)
      .max(200)
      .meta({ description: 'Stable client identifier (not a name)' }),
    documentReference: WellFormedString.min(1).max(200).meta({ description: 'Stable document identifier' }),
    factFindSummary: StorableJsonObject.meta({
      description: `As supplied; stored verbatim. ${STORABLE_JSON_DESCRIPTION}`,
    }),
    priority: z.enum(JOB_PRIORITIES).default('STANDARD'),
    aiContext: AiContext.nullable().optional(),
    vulnerabilityFlags: uniqueArray(z.enum(VULNERABILITY_FLAGS), 'vulnerability flag')
      .default([])
      .meta({ description: 'Any flag forces requiresSeniorSignOff to true' }),
    requiresSeniorSignOff: z.boolean().optional(),
    clientSegments: ClientSegments.default({}),
  })
  .meta({ id: 'SubmitReviewJob' });

export const ReviewJob = z
  .object({
    id: z.string().meta({ description: 'job_<ULID>' }),
    firmId: z.string(),
    documentReference: z.string(),
    documentType: z.string(),
    documentUrl: z.string().meta({
      description:
        'Internal URI of the canonical copy in the immutable ledger bucket: immutable://documents/<firmId>/<jobId>/<filename>',
    }),
    documentHash: z.string().meta({ description: 'hex sha256 of the uploaded bytes' }),
    clientReference: z.string(),
    factFindSummary: z.record(z.string(), z.unknown()),
    status: z.enum(JOB_STATUSES),
    priority: z.enum(JOB_PRIORITIES),
    outcome: z.enum(JOB_OUTCOMES).nullable(),
    outcomeReason: z.string().nullable(),
    modifications: z.string().nullable(),
    assignedReviewerId: z.string().nullable(),
    assignedAt: Timestamp.nullable(),
    completedAt: Timestamp.nullable(),
    submittedAt: Timestamp,
    slaDeadline: Timestamp.meta({ description: 'submittedAt plus 48 hours' }),
    aiContext: AiContext.nullable(),
    vulnerabilityFlags: z.array(z.enum(VULNERABILITY_FLAGS)),
    requiresSeniorSignOff: z.boolean(),
    clientSegments: z.record(z.string(), z.string()),
    ledgerRecordId: z.string().nullable().meta({ description: "The outcome record's id once completed" }),
    certificateId: z.string().nullable(),
    annotationCount: z.int().meta({ description: 'Annotations submitted with the decision (0 until then)' }),
    slaBreachedAt: Timestamp.nullable().meta({
      description: 'When SLA_BREACHED was recorded for the job (at most once); null otherwise',
    }),
  })
  .meta({ id: 'ReviewJob' });

export const ReviewAction = z
  .object({
    action: z.enum(REVIEW_ACTIONS),
    at: Timestamp,
    role: z.enum([...ROLES, 'SYSTEM', 'SUBMITTER']).meta({
      description:
        "The acting user's role; SYSTEM for routing, re-routing and the SLA sweep; SUBMITTER for a cancellation",
    }),
    reviewer: z.string().nullable().meta({
      description:
        'Pseudonymous label of the reviewer concerned, stable within this job ("Reviewer 1", "Reviewer 2"); never a name, e-mail or id',
    }),
  })
  .meta({ id: 'ReviewAction' });

export const ReviewJobDetail = ReviewJob.extend({
  reviewActions: z.array(ReviewAction).meta({
    description:
      'Anonymised review actions, oldest first: {action, at, role, reviewer} without reviewer identities',
  }),
}).meta({ id: 'ReviewJobDetail' });

export const ListJobsQuery = PageQuery.extend({
  status: z.enum(JOB_STATUSES).optional().meta({ description: 'Only jobs in this status' }),
});

export const ReviewJobPage = paged(ReviewJob, 'ReviewJobPage');

/** The reviewer's queue is bounded by open work (active job, open escalations): page numbers, no cursor. */
export const ReviewQueueQuery = PageQuery.omit({ cursor: true });
export const ReviewQueuePage = paged(ReviewJob, 'ReviewQueuePage');

const ChecklistAnswer = z
  .strictObject({
    item: WellFormedString.min(1)
      .max(500)
      .meta({ description: "A checklist item of the job's document type, verbatim" }),
    answer: z.enum(CHECKLIST_ANSWERS),
    note: WellFormedString.max(2000).optional(),
  })
  .meta({ id: 'ChecklistAnswer' });

const Annotation = z
  .strictObject({
    page: z.int().min(1).optional().meta({ description: 'Page of the document the note is about' }),
    text: WellFormedString.min(1).max(2000),
  })
  .meta({ id: 'Annotation' });

export const CompleteJobBody = z
  .strictObject({
    outcome: z.enum(JOB_OUTCOMES),
    outcomeReason: WellFormedString.max(5000).nullable().optional().meta({
      description: 'Required (non-blank) for REJECTED; optional otherwise',
    }),
    modifications: WellFormedString.max(20000).nullable().optional().meta({
      description:
        'Required (non-blank) for APPROVED_WITH_MODIFICATIONS and stored verbatim; refused otherwise',
    }),
    checklist: z.array(ChecklistAnswer).max(100).optional().meta({
      description:
        "Optional; when given, answers every item of the document type's checklist exactly once (400 otherwise)",
    }),
    annotations: z.array(Annotation).max(50).optional().meta({
      description: "Reviewer notes, recorded on REVIEW_COMPLETED; their number is the job's annotationCount",
    }),
  })
  .meta({ id: 'CompleteReviewJob' });

export const EscalateJobBody = z
  .strictObject({
    reason: WellFormedString.trim().min(1).max(2000).meta({ description: 'Why senior sign-off is needed' }),
  })
  .meta({ id: 'EscalateReviewJob' });

export const AvailabilityBody = z
  .strictObject({ isAvailable: z.boolean() })
  .meta({ id: 'ReviewerAvailabilityRequest' });

export const Availability = z
  .object({
    isAvailable: z.boolean(),
    activeJobId: z.string().nullable().meta({ description: 'The job the caller holds, if any' }),
  })
  .meta({ id: 'ReviewerAvailability' });
