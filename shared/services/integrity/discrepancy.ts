/** The immutable copy against the database, read only: a record's discrepancy, a missing record. */
import { NotFoundError } from '../../errors.js';
import type { Deps } from '../../runtime/deps.js';
import { compareAt } from './immutable-copy.js';
import { resolveSequence } from './record-locator.js';

/** Field-by-field comparison of the database row and the immutable copy for a record id. */
export async function discrepancy(deps: Deps, firmId: string, recordId: string) {
  const sequenceNumber = await resolveSequence(deps, firmId, recordId);
  if (sequenceNumber === null) throw new NotFoundError('Ledger record not found');
  const { immutableKey: _key, ...comparison } = await compareAt(deps, firmId, recordId, sequenceNumber);
  return comparison;
}

/** The immutable copy of a sequence number whose database row is gone; 404 if it never existed or is present. */
export async function missingRecord(deps: Deps, firmId: string, sequenceNumber: number) {
  const comparison = await compareAt(deps, firmId, null, sequenceNumber);
  if (comparison.immutable === null)
    throw new NotFoundError(`No record with sequence number ${sequenceNumber} was ever written`);
  if (comparison.database !== null)
    throw new NotFoundError(`Record ${sequenceNumber} is present in the database`);
  const { immutableKey: _key, ...body } = comparison;
  return body;
}
