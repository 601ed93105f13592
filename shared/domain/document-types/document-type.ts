import { ID_PREFIX } from '../../ids.js';
import {
  PLATFORM_DEFAULTS_UPDATED_AT,
  PLATFORM_DOCUMENT_TYPES,
  type PlatformDocumentType,
} from './platform-defaults.js';

/**
 * A document type: what a submitted advice document is, and the checklist its reviewer works through. The
 * platform's defaults are visible to every firm (firmId `platform`, id `doctype_<slug>`); a firm's own types
 * and its overrides of defaults are stored per firm and win over a default with the same slug.
 */
export interface DocumentType {
  id: string;
  firmId: string;
  slug: string;
  name: string;
  checklistItems: string[];
  createdAt: string;
  updatedAt: string;
}

/** The firmId presented on platform defaults. */
export const PLATFORM_FIRM_ID = 'platform';

/** Slugs: an uppercase letter, then uppercase letters, digits and underscores; at most 64 characters. */
export const SLUG_PATTERN = /^[A-Z][A-Z0-9_]*$/;
export const SLUG_MAX_LENGTH = 64;
export const SLUG_MESSAGE = 'A slug is uppercase letters, digits and underscores, starting with a letter';

export function isValidSlug(slug: string): boolean {
  return slug.length <= SLUG_MAX_LENGTH && SLUG_PATTERN.test(slug);
}

/** The id of a platform default: `doctype_<slug>` (custom types have `doctype_<ULID>`, which starts with a digit). */
export function platformDocumentTypeId(slug: string): string {
  return `${ID_PREFIX.documentType}_${slug}`;
}

function present(type: PlatformDocumentType): DocumentType {
  return {
    id: platformDocumentTypeId(type.slug),
    firmId: PLATFORM_FIRM_ID,
    slug: type.slug,
    name: type.name,
    checklistItems: [...type.checklistItems],
    createdAt: PLATFORM_DEFAULTS_UPDATED_AT,
    updatedAt: PLATFORM_DEFAULTS_UPDATED_AT,
  };
}

export function platformDefaults(): DocumentType[] {
  return PLATFORM_DOCUMENT_TYPES.map(present);
}

/** The platform default with this slug, or null. */
export function platformDefault(slug: string): DocumentType | null {
  const found = PLATFORM_DOCUMENT_TYPES.find((type) => type.slug === slug);
  return found ? present(found) : null;
}

export function isPlatformDefault(slug: string): boolean {
  return PLATFORM_DOCUMENT_TYPES.some((type) => type.slug === slug);
}

/**
 * What a firm sees: the platform defaults in their fixed order, each replaced by the firm's override when it
 * has one, then the firm's own types by slug.
 */
export function documentTypesOfFirm(firmTypes: readonly DocumentType[]): DocumentType[] {
  const bySlug = new Map(firmTypes.map((type) => [type.slug, type]));
  const defaults = platformDefaults().map((type) => bySlug.get(type.slug) ?? type);
  const custom = firmTypes
    .filter((type) => !isPlatformDefault(type.slug))
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  return [...defaults, ...custom];
}

/** The firm's version of a slug (override or custom type) first, then the platform default, else null. */
export function resolveDocumentType(firmType: DocumentType | null, slug: string): DocumentType | null {
  return firmType ?? platformDefault(slug);
}
