import {
  documentTypesOfFirm,
  isPlatformDefault,
  isValidSlug,
  PLATFORM_FIRM_ID,
  platformDefault,
  platformDefaults,
  resolveDocumentType,
  type DocumentType,
} from '../../../shared/domain/document-types/document-type.js';
import { PLATFORM_DOCUMENT_TYPES } from '../../../shared/domain/document-types/platform-defaults.js';
import { CreateDocumentTypeBody, UpdateDocumentTypeBody } from '../../../shared/schemas/document-types.js';

const firmType = (slug: string, name = `Firm ${slug}`): DocumentType => ({
  id: `doctype_01J${slug.length}`,
  firmId: 'firm_1',
  slug,
  name,
  checklistItems: ['One check'],
  createdAt: '2026-11-21T10:00:00.000Z',
  updatedAt: '2026-11-21T10:00:00.000Z',
});

describe('platform default document types', () => {
  it('covers the common UK advice documents', () => {
    expect(PLATFORM_DOCUMENT_TYPES.map((t) => t.slug)).toEqual([
      'SUITABILITY_REPORT',
      'PENSION_TRANSFER_REPORT',
      'RETIREMENT_INCOME_REPORT',
      'PROTECTION_RECOMMENDATION',
      'MORTGAGE_RECOMMENDATION',
      'EQUITY_RELEASE_REPORT',
      'ANNUAL_REVIEW',
    ]);
  });

  it.each(PLATFORM_DOCUMENT_TYPES.map((t) => [t.slug, t] as const))(
    '%s has a valid slug, a name and 5 to 8 distinct, non-empty checklist items',
    (_slug, type) => {
      expect(isValidSlug(type.slug)).toBe(true);
      expect(type.name.trim()).not.toBe('');
      expect(type.checklistItems.length).toBeGreaterThanOrEqual(5);
      expect(type.checklistItems.length).toBeLessThanOrEqual(8);
      expect(new Set(type.checklistItems).size).toBe(type.checklistItems.length);
      for (const item of type.checklistItems) {
        expect(item).toBe(item.trim());
        expect(item.length).toBeGreaterThan(20);
        expect(item.length).toBeLessThanOrEqual(500);
      }
      // Every default passes the same validation a firm's own type does.
      expect(
        CreateDocumentTypeBody.safeParse({ ...type, checklistItems: [...type.checklistItems] }).success,
      ).toBe(true);
    },
  );

  it('asks about vulnerability (FG21/1) and Consumer Duty outcomes in every checklist', () => {
    for (const type of PLATFORM_DOCUMENT_TYPES) {
      expect([type.slug, type.checklistItems.some((item) => /vulnerab/i.test(item))]).toEqual([
        type.slug,
        true,
      ]);
      expect([type.slug, type.checklistItems.some((item) => /fair value|Consumer Duty/i.test(item))]).toEqual(
        [type.slug, true],
      );
    }
  });

  it('presents defaults with firmId "platform", id doctype_<slug> and fixed timestamps', () => {
    const suitability = platformDefault('SUITABILITY_REPORT')!;
    expect(suitability).toEqual({
      id: 'doctype_SUITABILITY_REPORT',
      firmId: PLATFORM_FIRM_ID,
      slug: 'SUITABILITY_REPORT',
      name: 'Suitability report (investment advice)',
      checklistItems: expect.any(Array),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: suitability.createdAt,
    });
    expect(platformDefaults()).toHaveLength(PLATFORM_DOCUMENT_TYPES.length);
    expect(platformDefault('NOT_A_DEFAULT')).toBeNull();
    expect(isPlatformDefault('ANNUAL_REVIEW')).toBe(true);
    expect(isPlatformDefault('annual_review')).toBe(false);
  });

  it('hands out copies, so a caller cannot change the defaults', () => {
    platformDefault('ANNUAL_REVIEW')!.checklistItems.push('tampered');
    expect(platformDefault('ANNUAL_REVIEW')!.checklistItems).not.toContain('tampered');
  });
});

describe('slugs', () => {
  it.each(['A', 'SUITABILITY_REPORT', 'ISA_TRANSFER_2', 'A__B_', 'X'.repeat(64)])('accepts %s', (slug) => {
    expect(isValidSlug(slug)).toBe(true);
  });

  it.each([
    '',
    'suitability',
    'Suitability',
    '_LEADING',
    '1ST',
    'WITH-HYPHEN',
    'WITH SPACE',
    'ÉTÉ',
    'X'.repeat(65),
  ])('refuses %j', (slug) => {
    expect(isValidSlug(slug)).toBe(false);
  });
});

describe("a firm's document types", () => {
  it('lists the defaults in order, an override in its default place, then custom types by slug', () => {
    const listed = documentTypesOfFirm([
      firmType('ZEBRA_REPORT'),
      firmType('ANNUAL_REVIEW', 'Our annual review'),
      firmType('CASHFLOW_PLAN'),
    ]);
    expect(listed.map((t) => t.slug)).toEqual([
      ...PLATFORM_DOCUMENT_TYPES.map((t) => t.slug),
      'CASHFLOW_PLAN',
      'ZEBRA_REPORT',
    ]);
    const annual = listed.find((t) => t.slug === 'ANNUAL_REVIEW')!;
    expect(annual).toMatchObject({ firmId: 'firm_1', name: 'Our annual review' });
    expect(listed.filter((t) => t.firmId === PLATFORM_FIRM_ID)).toHaveLength(
      PLATFORM_DOCUMENT_TYPES.length - 1,
    );
  });

  it('lists only the defaults for a firm without types of its own', () => {
    expect(documentTypesOfFirm([])).toEqual(platformDefaults());
  });

  it("resolves a slug to the firm's version first, then the default", () => {
    const override = firmType('SUITABILITY_REPORT', 'Ours');
    expect(resolveDocumentType(override, 'SUITABILITY_REPORT')).toBe(override);
    expect(resolveDocumentType(null, 'SUITABILITY_REPORT')?.firmId).toBe(PLATFORM_FIRM_ID);
    expect(resolveDocumentType(null, 'UNKNOWN_TYPE')).toBeNull();
  });
});

describe('document type request bodies', () => {
  it('trims names and items and refuses duplicates after trimming', () => {
    const parsed = CreateDocumentTypeBody.parse({
      slug: 'CASHFLOW',
      name: ' Cashflow ',
      checklistItems: [' A '],
    });
    expect(parsed).toEqual({ slug: 'CASHFLOW', name: 'Cashflow', checklistItems: ['A'] });
    const duplicate = CreateDocumentTypeBody.safeParse({ slug: 'X', name: 'X', checklistItems: ['A', ' A'] });
    expect(duplicate.error?.issues.map((i) => i.path.join('.'))).toEqual(['checklistItems.1']);
  });

  it('needs at least one field in an update, and no unknown ones', () => {
    expect(UpdateDocumentTypeBody.safeParse({}).success).toBe(false);
    expect(UpdateDocumentTypeBody.safeParse({ slug: 'OTHER' }).success).toBe(false);
    expect(UpdateDocumentTypeBody.safeParse({ name: '' }).success).toBe(false);
    expect(UpdateDocumentTypeBody.safeParse({ checklistItems: [] }).success).toBe(false);
    expect(UpdateDocumentTypeBody.parse({ name: 'New' })).toEqual({ name: 'New' });
  });
});
