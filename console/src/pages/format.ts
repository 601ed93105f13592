/**
 * The pure formatting and paging rules of the compliance, administration and ledger pages (unit-tested in
 * test/unit/console/format.test.ts; no React, no DOM).
 */

export const percent = (fraction: number | null | undefined, digits = 1): string =>
  fraction === null || fraction === undefined ? 'no data' : `${(fraction * 100).toFixed(digits)} %`;

export const dateTime = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—';

export const day = (iso: string | null | undefined): string => (iso ? iso.slice(0, 10) : '—');

/** A readable enum or field name: PENDING_SIGNOFF → Pending signoff, rejectionRate → Rejection rate. */
export const words = (value: string): string => {
  const lower = value
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
  const sentence = lower.charAt(0).toUpperCase() + lower.slice(1);
  return sentence.replace(/\b(ai|api|sla|fca)\b/gi, (acronym) => acronym.toUpperCase());
};

/** Who acted, in words: a user by name, an API key as such (`API key "Case system"`). */
export const actorName = (actor: { type: 'USER' | 'API_KEY'; name: string } | null | undefined): string =>
  !actor ? 'unknown' : actor.type === 'API_KEY' ? `API key "${actor.name}"` : actor.name;

/**
 * The pagination of a paged list. `nextCursor` and a null `total` come with cursor paging (issue 14): a filtered
 * page may be short, even empty, and still have a next one; without a cursor, page numbers are followed.
 */
export interface PageInfo {
  page: number;
  total: number | null;
  totalPages: number | null;
  nextCursor?: string | null;
}

export function hasNextPage(info: PageInfo): boolean {
  if (info.nextCursor !== undefined) return info.nextCursor !== null;
  return info.totalPages !== null && info.page < info.totalPages;
}
