/**
 * The tamper watch's judgement (docs/architecture.md §6c), pure. The service only ever creates record rows
 * (append) and puts them back from their immutable copies (restore), and never removes a row or the chain head;
 * DynamoDB's stream tells of every other change. A change is judged by the row as it stands when the change is
 * handled, against its immutable copy: a row that is exactly what restore writes from the copy is intact (the
 * change was restore's own repair, or a later restore repaired it already), anything else is tampering. Judging
 * the current state makes a replayed or reordered stream record harmless: it can never flag a repaired row.
 */
import type { LedgerRecord } from '../../ledger/record.js';
import { canonicalOrNull, diffRecords } from './record-diff.js';

/** What a change of the ledger table concerns, when the tamper watch must judge it. */
export type TamperSubject =
  { kind: 'record'; firmId: string; sequenceNumber: number } | { kind: 'head'; firmId: string };

const FIRM_PK = /^FIRM#(.+)$/;
const RECORD_SK = /^REC#(\d{12})$/;

/**
 * The subject of a stream change of the ledger table (its event name and key), or null when the change is not
 * the watch's to judge: a record row's creation (append, restore's re-insert), the head's moves, any other item.
 */
export function tamperSubject(eventName: string, pk: string, sk: string): TamperSubject | null {
  const firm = FIRM_PK.exec(pk);
  if (!firm) return null;
  const firmId = firm[1]!;
  const record = RECORD_SK.exec(sk);
  if (record && (eventName === 'MODIFY' || eventName === 'REMOVE')) {
    const sequenceNumber = Number(record[1]);
    return sequenceNumber >= 1 ? { kind: 'record', firmId, sequenceNumber } : null;
  }
  if (sk === 'HEAD' && eventName === 'REMOVE') return { kind: 'head', firmId };
  return null;
}

/** A record row as it stands: its record fields, and its other attributes (keys excluded: the index attributes). */
export interface StoredRow {
  record: LedgerRecord;
  storage: Record<string, unknown>;
}

/** The immutable copy of the row's record: its bytes, the record, and the index attributes a row of it carries. */
export interface ExpectedRow {
  bytes: string;
  record: LedgerRecord;
  storage: Record<string, string>;
}

export type RowVerdict =
  { intact: true } | { intact: false; change: 'REMOVED' | 'MODIFIED'; fieldsChanged: string[] };

/**
 * Whether the row is exactly the one restore writes from the copy: its record canonicalises to the copy's bytes
 * and it carries exactly the index attributes of the copy's record, nothing more. A missing row is REMOVED; a
 * row without a copy to prove it (none written yet, or two that claim the position) is MODIFIED, as is every
 * other difference, named field by field (record fields, then storage attributes).
 */
export function judgeRecordRow(row: StoredRow | null, copy: ExpectedRow | null): RowVerdict {
  if (!row) return { intact: false, change: 'REMOVED', fieldsChanged: [] };
  if (!copy) return { intact: false, change: 'MODIFIED', fieldsChanged: [] };
  const recordMatches = canonicalOrNull(row.record) === copy.bytes;
  const storageNames = new Set([...Object.keys(row.storage), ...Object.keys(copy.storage)]);
  const storageChanged = [...storageNames].filter((name) => row.storage[name] !== copy.storage[name]).sort();
  if (recordMatches && storageChanged.length === 0) return { intact: true };
  const fields = recordMatches ? [] : diffRecords(row.record, copy.record).map((d) => d.field);
  // A difference canonical JSON sees but no field shows (key order of a nested map cannot differ canonically)
  // still counts: the record field list then stays empty and the row is MODIFIED all the same.
  return { intact: false, change: 'MODIFIED', fieldsChanged: [...fields, ...storageChanged] };
}
