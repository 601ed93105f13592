import { RECORD_FIELDS, type LedgerRecord } from '../../ledger/record.js';
import { canonicalJson } from '../../ledger/hashing.js';

export interface FieldDiff {
  field: string;
  database: unknown;
  immutable: unknown;
}

/**
 * The canonical JSON of a value, or null when it has none (a lone surrogate a damaged row holds): such a value
 * is never equal to anything, so it is reported as a difference and restored.
 */
export function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

/**
 * A text that tells any two rows apart, canonical ones or not: the canonical JSON when there is one, otherwise
 * JSON with lone surrogates escaped and sets, binary and big integers tagged (the digest of a damaged row).
 */
export function distinctText(value: unknown): string {
  return (
    canonicalOrNull(value) ??
    `raw:${JSON.stringify(value, (_key, item: unknown) => {
      if (item instanceof Set) return { $set: [...(item as Set<unknown>)] };
      if (item instanceof Uint8Array) return { $binary: Buffer.from(item).toString('base64') };
      if (typeof item === 'bigint') return { $bigint: item.toString() };
      return item;
    })}`
  );
}

/**
 * Field-by-field differences between the database row and the immutable copy of a record. A missing side
 * makes every field differ (its value is reported as null). Values compare by canonical JSON; a value without
 * one (a damaged row's) differs.
 */
export function diffRecords(database: LedgerRecord | null, immutable: LedgerRecord | null): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  for (const field of RECORD_FIELDS) {
    const a = database ? database[field] : undefined;
    const b = immutable ? immutable[field] : undefined;
    const left = canonicalOrNull(a ?? null);
    if (
      left === null ||
      left !== canonicalOrNull(b ?? null) ||
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
