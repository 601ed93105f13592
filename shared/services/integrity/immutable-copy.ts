/**
 * Reading the immutable copy of a firm's ledger (the Object Lock bucket) and comparing it with the database:
 * the copy of a sequence number, whether a copy can be trusted, and the field-by-field comparison that
 * discrepancy, missing-record and restore build on. (Which sequence number a record id concerns:
 * record-locator.ts.)
 */
import { diffRecords } from '../../domain/integrity/record-diff.js';
import { ConflictError } from '../../errors.js';
import { recordOf, type LedgerRecord } from '../../ledger/record.js';
import { keyProblemAt } from '../../ledger/key-history.js';
import { signingKeyHistory } from '../key-history.js';
import { checkRecord } from '../../ledger/verify.js';
import type { Deps } from '../../runtime/deps.js';
import { immutableRecordKey, immutableSequencePrefix } from '../../store/immutable-layout.js';
import { getRecordBySequence } from '../../store/ledger-store.js';
import { trustProblems } from './copy-trust.js';

export interface ImmutableCopy {
  key: string;
  record: LedgerRecord;
  bytes: string;
}

async function readCopy(deps: Deps, key: string): Promise<ImmutableCopy | null> {
  const object = await deps.objects.get('immutable', key);
  if (!object) return null;
  const bytes = Buffer.from(object.body).toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes);
  } catch {
    parsed = null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConflictError(`The immutable copy ${key} is not a JSON record`);
  return { key, bytes, record: recordOf(parsed as LedgerRecord) };
}

/**
 * Why a copy cannot be trusted as the record of `sequenceNumber` in `firmId` (empty when it can): the rule of
 * copy-trust.ts (trustProblems) under the signing-key history this instance sees.
 */
export async function copyProblems(
  deps: Deps,
  firmId: string,
  sequenceNumber: number,
  copy: Pick<ImmutableCopy, 'key' | 'record'>,
): Promise<string[]> {
  return trustProblems(await signingKeyHistory(deps), firmId, sequenceNumber, copy);
}

/**
 * The immutable copy for a sequence number. Object Lock forbids overwrites but not new keys, so should two
 * objects claim one sequence number, the one whose own hashes and signature hold, by a key valid at its
 * timestamp (the key history), is the copy.
 */
/**
 * The copy of one record at the key the archive writes it to (its firm, sequence number and id): one read. What
 * a spot check needs; finding every copy that claims a sequence number (another id) is `copyAtSequence`'s job.
 */
export function copyOfRecord(
  deps: Deps,
  record: Pick<LedgerRecord, 'firmId' | 'sequenceNumber' | 'id'>,
): Promise<ImmutableCopy | null> {
  return readCopy(deps, immutableRecordKey(record.firmId, record.sequenceNumber, record.id));
}

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
  const history = await signingKeyHistory(deps);
  const sound = copies.filter(
    (c) =>
      c.record.firmId === firmId &&
      checkRecord(c.record).length === 0 &&
      keyProblemAt(history, c.record.publicKey, c.record.timestamp) === null,
  );
  if (sound.length !== 1)
    throw new ConflictError(
      `The immutable store holds ${copies.length} candidate copies of sequence ${sequenceNumber}`,
    );
  return sound[0]!;
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
