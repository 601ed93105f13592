import {
  documentTypesOfFirm,
  isPlatformDefault,
  isValidSlug,
  platformDefault,
  resolveDocumentType,
  type DocumentType,
} from '../domain/document-types/document-type.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { LOST_RACE, retryOnLostRace } from '../store/lost-race.js';
import {
  getDocumentType,
  insertDocumentType,
  listDocumentTypes,
  updateDocumentType,
  type DocumentTypeChange,
} from '../store/document-type-store.js';

/** The platform defaults (or the firm's overrides of them) followed by the firm's own types. */
export async function firmDocumentTypes(deps: Deps, firmId: string): Promise<DocumentType[]> {
  return documentTypesOfFirm(await listDocumentTypes(deps, firmId));
}

/**
 * The document type a firm's job submission names: the firm's own type or override first, then the platform
 * default; null when the slug is unknown to the firm (job submission answers 400).
 */
export async function findDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
): Promise<DocumentType | null> {
  if (!isValidSlug(slug)) return null;
  return resolveDocumentType(await getDocumentType(deps, firmId, slug), slug);
}

export interface NewDocumentType {
  slug: string;
  name: string;
  checklistItems: string[];
}

/** A firm's custom type. 409 when the firm already uses the slug or it is a platform default's. */
export async function addDocumentType(
  deps: Deps,
  firmId: string,
  input: NewDocumentType,
): Promise<DocumentType> {
  if (isPlatformDefault(input.slug))
    throw new ConflictError(
      `${input.slug} is a platform default document type; change it with PATCH /v1/firm/me/document-types/${input.slug}`,
    );
  const now = isoNow(deps.clock);
  const item: DocumentType = {
    id: newId('documentType'),
    firmId,
    slug: input.slug,
    name: input.name,
    checklistItems: input.checklistItems,
    createdAt: now,
    updatedAt: now,
  };
  const outcome = await insertDocumentType(deps, item);
  if (outcome.status === 'conflict')
    throw new ConflictError('The document type was changed concurrently; retry');
  if (outcome.status === 'condition-failed')
    throw new ConflictError(`The firm already has a document type ${input.slug}`);
  return item;
}

const PATCH_ATTEMPTS = 3;

/**
 * Changes the firm's type for a slug. For a platform default the firm has not changed yet, the first PATCH
 * creates the firm's override (the default's fields, with the change applied); the default itself is never
 * changed. Both writes are conditional, so concurrent PATCHes of a default create one override and both
 * changes land on it. 404 for a slug the firm does not know.
 */
export async function patchDocumentType(
  deps: Deps,
  firmId: string,
  slug: string,
  change: DocumentTypeChange,
): Promise<DocumentType> {
  if (!isValidSlug(slug)) throw new NotFoundError('Document type not found');
  return retryOnLostRace(
    async () => {
      const now = isoNow(deps.clock);
      const updated = await updateDocumentType(deps, firmId, slug, change, now);
      if (updated.status === 'committed') return updated.item;
      if (updated.status === 'conflict') return LOST_RACE;
      const fallback = platformDefault(slug);
      if (!fallback) throw new NotFoundError('Document type not found');
      const override: DocumentType = {
        id: newId('documentType'),
        firmId,
        slug,
        name: change.name ?? fallback.name,
        checklistItems: change.checklistItems ?? fallback.checklistItems,
        createdAt: now,
        updatedAt: now,
      };
      const inserted = await insertDocumentType(deps, override);
      // Not committed: another request created the override first (apply this change to it) or was writing it.
      return inserted.status === 'committed' ? override : LOST_RACE;
    },
    {
      attempts: PATCH_ATTEMPTS,
      exhausted: () => new ConflictError('The document type was changed concurrently; retry'),
    },
  );
}
