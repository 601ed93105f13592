import { RECORD_FIELDS, type LedgerRecord } from '../../ledger/record.js';
import { canonicalJson } from '../../ledger/hashing.js';

export interface FieldDiff {
  field: string;
  database: unknown;
  immutable: unknown;
}

/**
 * Field-by-field differences between the database row and the immutable copy of a record. A missing side
 * makes every field differ (its value is reported as null). Values compare by canonical JSON.
 */
export function diffRecords(database: LedgerRecord | null, immutable: LedgerRecord | null): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  for (const field of RECORD_FIELDS) {
    const a = database ? database[field] : undefined;
    const b = immutable ? immutable[field] : undefined;
    if (
      canonicalJson(a ?? null) !== canonicalJson(b ?? null) ||
      (database === null) !== (immutable === null)
    ) {
      diffs.push({
        field,
        database: database ? (a ?? null) : null,
        immutable: immutable ? (b ?? null) : null,
      });
    }
  }
  return diffs;
}
