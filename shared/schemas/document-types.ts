import * as z from 'zod';
import { SLUG_MAX_LENGTH, SLUG_MESSAGE, SLUG_PATTERN } from '../domain/document-types/document-type.js';
import { Timestamp } from './common.js';
import { uniqueArray } from './unique-items.js';
import { WellFormedString } from './storable-json.js';

export const MAX_CHECKLIST_ITEMS = 50;

const Name = WellFormedString.trim().min(1).max(200).meta({ description: 'Display name' });

const ChecklistItems = uniqueArray(WellFormedString.trim().min(1).max(500), 'checklist item')
  .min(1)
  .max(MAX_CHECKLIST_ITEMS)
  .meta({ description: `The review checklist: 1 to ${MAX_CHECKLIST_ITEMS} distinct, non-empty items` });

export const DocumentType = z
  .object({
    id: z.string().meta({ description: 'doctype_<slug> for platform defaults, doctype_<ULID> otherwise' }),
    firmId: z.string().meta({ description: '"platform" for a platform default the firm has not overridden' }),
    slug: z.string(),
    name: z.string(),
    checklistItems: z.array(z.string()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'DocumentType' });

export const CreateDocumentTypeBody = z
  .strictObject({
    slug: z.string().min(1).max(SLUG_MAX_LENGTH).regex(SLUG_PATTERN, SLUG_MESSAGE).meta({
      description:
        'Unique within the firm and not a platform default slug; used as documentType in job submissions',
    }),
    name: Name,
    checklistItems: ChecklistItems,
  })
  .meta({ id: 'CreateDocumentType' });

export const UpdateDocumentTypeBody = z
  .strictObject({ name: Name.optional(), checklistItems: ChecklistItems.optional() })
  .refine((body) => body.name !== undefined || body.checklistItems !== undefined, {
    message: 'Send name, checklistItems or both',
  })
  .meta({ id: 'UpdateDocumentType', minProperties: 1 });

export const SlugParam = z.object({ slug: WellFormedString.min(1).max(200) });
