/**
 * Reading the immutable copy of a firm's ledger (the Object Lock bucket) and comparing it with the database:
 * the copy of a sequence number, the sequence number a record id concerns, and the field-by-field comparison
 * that discrepancy, missing-record and restore build on.
 */
import { diffRecords } from '../../domain/integrity/record-diff.js';
import { ConflictError } from '../../errors.js';
import { recordOf, type LedgerRecord } from '../../ledger/record.js';
import { checkRecord } from '../../ledger/verify.js';
import type { Deps } from '../../runtime/deps.js';
import {
  immutableFirmPrefix,
  immutableSequencePrefix,
  parseImmutableRecordKey,
} from '../../store/immutable-layout.js';
import { getRecordBySequence, rowsWithRecordId } from '../../store/ledger-store.js';

export interface ImmutableCopy {
  key: string;
  record: LedgerRecord;
  bytes: string;
}

async function readCopy(deps: Deps, key: string): Promise<ImmutableCopy | null> {
  const object = await deps.objects.get('immutable', key);
  if (!object) return null;
  const bytes = Buffer.from(object.body).toString('utf8');
  return { key, bytes, record: recordOf(JSON.parse(bytes) as LedgerRecord) };
}

/**
 * The immutable copy for a sequence number. Object Lock forbids overwrites but not new keys, so should two
 * objects claim one sequence number, the one whose own hashes and signature hold is the copy.
 */
export async function copyAtSequence(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
): Promise<ImmutableCopy | null> {
  const copies: ImmutableCopy[] = [];
  for await (const key of deps.objects.list('immutable', immutableSequencePrefix(firmId, sequenceNumber))) {
    const copy = await readCopy(deps, key);
    if (copy) copies.push(copy);
  }
  if (copies.length <= 1) return copies[0] ?? null;
  const sound = copies.filter((c) => c.record.firmId === firmId && checkRecord(c.record).length === 0);
  if (sound.length !== 1)
    throw new ConflictError(
      `The immutable store holds ${copies.length} candidate copies of sequence ${sequenceNumber}`,
    );
  return sound[0]!;
}

/**
 * Resolves a record id to the sequence number it concerns: the immutable copy with that id is authoritative
 * (looked up first at the positions of database rows carrying the id, then across the firm's copies); an id
 * only the database knows (a forged row) resolves to the position of its row.
 */
export async function resolveSequence(deps: Deps, firmId: string, recordId: string): Promise<number | null> {
  const positions = (await rowsWithRecordId(deps, firmId, recordId)).map((row) => row.position);
  for (const position of positions) {
    for await (const key of deps.objects.list('immutable', immutableSequencePrefix(firmId, position))) {
      if (parseImmutableRecordKey(key)?.recordId === recordId) return position;
    }
  }
  for await (const key of deps.objects.list('immutable', immutableFirmPrefix(firmId))) {
    const parsed = parseImmutableRecordKey(key);
    if (parsed?.recordId === recordId) return parsed.sequenceNumber;
  }
  return positions[0] ?? null;
}

export async function compareAt(deps: Deps, firmId: string, recordId: string | null, sequenceNumber: number) {
  const [database, copy] = await Promise.all([
    getRecordBySequence(deps, firmId, sequenceNumber),
    copyAtSequence(deps, firmId, sequenceNumber),
  ]);
  return {
    recordId: recordId ?? copy?.record.id ?? database?.id ?? null,
    sequenceNumber,
    database,
    immutable: copy?.record ?? null,
    immutableKey: copy?.key ?? null,
    diffs: diffRecords(database, copy?.record ?? null),
  };
}
