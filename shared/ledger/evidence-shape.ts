import { EVIDENCE_BUNDLE_FORMAT, EVIDENCE_BUNDLE_VERSION, type EvidenceBundle } from './evidence-bundle.js';

/**
 * The structural check of an evidence bundle before it is verified: the fields the verifier relies on have the
 * types the format gives them. Record fields are not checked here: a record of the wrong shape fails its hash.
 * Pure and dependency-free, for the CLI and the offline page alike.
 */
export type ReadBundle = { ok: true; bundle: EvidenceBundle } | { ok: false; problems: string[] };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isSequence = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;
const isNullableString = (v: unknown) => v === null || typeof v === 'string';

function keyEntryProblems(entry: unknown, index: number): string[] {
  const at = `keyHistory.keys[${index}]`;
  if (!isObject(entry)) return [`${at} must be an object`];
  const problems: string[] = [];
  for (const field of ['fingerprint', 'publicKey', 'algorithm', 'keySpec', 'validFrom'])
    if (typeof entry[field] !== 'string') problems.push(`${at}.${field} must be a string`);
  for (const field of ['validUntil', 'revokedFrom'])
    if (!isNullableString(entry[field])) problems.push(`${at}.${field} must be a string or null`);
  const { endorsement } = entry;
  if (
    endorsement !== null &&
    !(
      isObject(endorsement) &&
      typeof endorsement.signedBy === 'string' &&
      typeof endorsement.signature === 'string'
    )
  )
    problems.push(`${at}.endorsement must be null or { signedBy, signature }`);
  return problems;
}

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The `log` part (issue 31): absent or null in bundles without a checkpoint. */
function logProblems(log: unknown): string[] {
  if (log === undefined || log === null) return [];
  if (!isObject(log)) return ['log must be absent, null or an object'];
  const problems: string[] = [];
  for (const field of ['origin', 'checkpoint', 'signedAt'])
    if (typeof log[field] !== 'string') problems.push(`log.${field} must be a string`);
  if (
    !Array.isArray(log.checkpointKeys) ||
    !log.checkpointKeys.every(
      (k) =>
        isObject(k) &&
        typeof k.publicKey === 'string' &&
        typeof k.validFrom === 'string' &&
        isNullableString(k.validUntil),
    )
  )
    problems.push('log.checkpointKeys must be an array of { publicKey, validFrom, validUntil }');
  if (
    !Array.isArray(log.proofs) ||
    !log.proofs.every((p) => isObject(p) && isSequence(p.sequenceNumber, 1) && isStrings(p.hashes))
  )
    problems.push('log.proofs must be an array of { sequenceNumber, hashes }');
  if (log.uncoveredFromSequence !== null && !isSequence(log.uncoveredFromSequence, 1))
    problems.push('log.uncoveredFromSequence must be null or a sequence number');
  const c = log.consistency;
  if (c !== null && !(isObject(c) && isSequence(c.fromSize, 1) && isStrings(c.hashes)))
    problems.push('log.consistency must be null or { fromSize, hashes }');
  return problems;
}

export function readBundle(input: unknown): ReadBundle {
  if (!isObject(input)) return { ok: false, problems: ['the bundle must be a JSON object'] };
  const problems: string[] = [];
  if (input.format !== EVIDENCE_BUNDLE_FORMAT) problems.push(`format must be "${EVIDENCE_BUNDLE_FORMAT}"`);
  if (input.version !== EVIDENCE_BUNDLE_VERSION) problems.push(`version must be ${EVIDENCE_BUNDLE_VERSION}`);
  if (typeof input.firmId !== 'string') problems.push('firmId must be a string');
  const { range } = input;
  if (!isObject(range) || !isSequence(range.fromSequence, 1))
    problems.push('range.fromSequence must be an integer from 1');
  else if (range.toSequence !== null && !isSequence(range.toSequence, range.fromSequence))
    problems.push('range.toSequence must be null or an integer not below range.fromSequence');
  if (!isSequence(input.headSequenceNumber, 0)) problems.push('headSequenceNumber must be an integer from 0');
  const next = input.nextFromSequence;
  if (next !== null && !(isSequence(next, 2) && isObject(range) && next > (range.fromSequence as number)))
    problems.push('nextFromSequence must be null or an integer after range.fromSequence');
  if (input.predecessor !== null && !isObject(input.predecessor))
    problems.push('predecessor must be null or a record');
  if (!Array.isArray(input.records) || !input.records.every(isObject))
    problems.push('records must be an array of records');
  const history = input.keyHistory;
  if (!isObject(history) || !Array.isArray(history.keys))
    problems.push('keyHistory must be an object with a keys array');
  else problems.push(...history.keys.flatMap(keyEntryProblems));
  if (typeof input.generatedAt !== 'string') problems.push('generatedAt must be a string');
  const { certificate } = input;
  if (
    certificate !== undefined &&
    certificate !== null &&
    !(
      isObject(certificate) &&
      ['id', 'ledgerRecordId', 'firmId', 'recordHash', 'chainHash'].every(
        (f) => typeof certificate[f] === 'string',
      ) &&
      isSequence(certificate.sequenceNumber, 1)
    )
  )
    problems.push('certificate must be absent, null or a certificate');
  problems.push(...logProblems(input.log));
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, bundle: input as unknown as EvidenceBundle };
}
