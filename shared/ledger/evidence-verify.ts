import canonicalize from 'canonicalize';
import { coveredRange, type EvidenceBundle } from './evidence-bundle.js';
import { checkEvidenceLog, type LogPolicy, type LogProblem, type LogVerdict } from './evidence-log-verify.js';
import { readBundle } from './evidence-shape.js';
import { endorsementText, keyProblemAt, type SigningKeyHistory } from './key-history.js';
import { payloadOf, type LedgerRecord } from './record.js';

/**
 * The offline verifier of evidence bundles (issue 15, part 5): pure, no I/O, and no platform crypto of its own.
 * Hashing and ECDSA come through `EvidenceCrypto`, so the same rules run in Node (the CLI, with
 * shared/ledger/verify.ts: evidence-crypto-node.ts) and in a browser (the offline page, with WebCrypto:
 * evidence-crypto-web.ts). The hashing rules are those of docs/ledger-format.md (shared/ledger/hashing.ts).
 */

export interface EvidenceCrypto {
  /** Lowercase hex SHA-256 of the bytes. */
  sha256Hex(data: Uint8Array): Promise<string>;
  /** ECDSA P-256 / SHA-256 over the UTF-8 bytes of `message`; base64 DER signature and SPKI key. */
  verifySignature(message: string, signatureBase64: string, publicKeyBase64: string): Promise<boolean>;
}

export type EvidenceProblem =
  | 'MALFORMED_BUNDLE'
  | 'RECORD_HASH_MISMATCH'
  | 'CHAIN_HASH_MISMATCH'
  | 'BROKEN_LINK'
  | 'BAD_SIGNATURE'
  | 'UNTRUSTED_KEY'
  | 'KEY_NOT_VALID_AT_TIMESTAMP'
  | 'KEY_REVOKED'
  | 'MISSING_RECORD'
  | 'UNEXPECTED_RECORD'
  | 'FIRM_MISMATCH'
  | 'BAD_KEY_HISTORY'
  | 'CERTIFICATE_MISMATCH'
  | LogProblem;

/** The kind of failure each problem is, as the issue names them (hash, link, signature, key window, ...). */
export const PROBLEM_REASONS = {
  MALFORMED_BUNDLE: 'format',
  RECORD_HASH_MISMATCH: 'hash',
  CHAIN_HASH_MISMATCH: 'hash',
  BROKEN_LINK: 'link',
  BAD_SIGNATURE: 'signature',
  UNTRUSTED_KEY: 'untrustedKey',
  KEY_NOT_VALID_AT_TIMESTAMP: 'keyWindow',
  KEY_REVOKED: 'revokedKey',
  MISSING_RECORD: 'missingRecord',
  UNEXPECTED_RECORD: 'link',
  FIRM_MISMATCH: 'firm',
  BAD_KEY_HISTORY: 'keyHistory',
  CERTIFICATE_MISMATCH: 'certificate',
  LOG_MISSING: 'log',
  CHECKPOINT_MALFORMED: 'format',
  CHECKPOINT_SIGNATURE: 'checkpointSignature',
  CHECKPOINT_KEY: 'checkpointKey',
  NOT_INCLUDED: 'inclusion',
  WITNESS_POLICY: 'witnessPolicy',
  CONSISTENCY_UNPROVEN: 'consistency',
  INCONSISTENT_HISTORY: 'consistency',
} as const satisfies Record<EvidenceProblem, string>;

export type FailureReason = (typeof PROBLEM_REASONS)[EvidenceProblem];

export interface EvidenceFailure {
  code: EvidenceProblem;
  reason: FailureReason;
  /** The record concerned (the first missing one for MISSING_RECORD); null for the bundle or its key history. */
  sequenceNumber: number | null;
  recordId: string | null;
  message: string;
}

export interface RecordVerdict {
  sequenceNumber: number | null;
  id: string | null;
  valid: boolean;
  problems: EvidenceProblem[];
}

export interface EvidenceVerdict {
  valid: boolean;
  firmId: string | null;
  /** The sequence numbers the bundle must hold (toSequence < fromSequence: none); null for a malformed bundle. */
  covered: { fromSequence: number; toSequence: number } | null;
  recordsChecked: number;
  /** The keys the bundle's history trusts: compare their fingerprints with the published history. */
  keys: { fingerprint: string; validFrom: string; validUntil: string | null; revokedFrom: string | null }[];
  failures: EvidenceFailure[];
  predecessor: RecordVerdict | null;
  records: RecordVerdict[];
  /** The verifiable-log checks (evidence-log-verify.ts); null when the bundle carries no checkpoint. */
  log: LogVerdict | null;
}

const MESSAGES: Record<
  Exclude<EvidenceProblem, 'MALFORMED_BUNDLE' | 'MISSING_RECORD' | LogProblem>,
  string
> = {
  RECORD_HASH_MISMATCH:
    'recordHash does not match the SHA-256 of the canonical payload (the payload was changed)',
  CHAIN_HASH_MISMATCH: 'chainHash does not match SHA-256(previousHash + recordHash)',
  BROKEN_LINK: "previousHash does not equal the preceding record's chainHash",
  BAD_SIGNATURE: "the signature does not verify over chainHash with the record's publicKey",
  UNTRUSTED_KEY: "the record's publicKey is not in the bundle's key history",
  KEY_NOT_VALID_AT_TIMESTAMP: "the record's key was not valid for signing at the record's timestamp",
  KEY_REVOKED: "the record's key was revoked at or before the record's timestamp",
  UNEXPECTED_RECORD: 'a record out of place: outside the covered range, repeated, or out of sequence order',
  FIRM_MISMATCH: "the record belongs to another firm than the bundle's firmId",
  BAD_KEY_HISTORY: 'the key history is inconsistent',
  CERTIFICATE_MISMATCH: 'the certificate does not certify this record',
};

const utf8 = (text: string) => new TextEncoder().encode(text);

function base64Bytes(text: string): Uint8Array | null {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Verifies a parsed bundle (any JSON value: a malformed one gets a MALFORMED_BUNDLE verdict); `policy` adds the
 * witness policy and the --since check of the verifiable log.
 */
export async function verifyEvidenceBundle(
  input: unknown,
  crypto: EvidenceCrypto,
  policy: LogPolicy = {},
): Promise<EvidenceVerdict> {
  const read = readBundle(input);
  if (!read.ok) {
    return {
      valid: false,
      firmId: null,
      covered: null,
      recordsChecked: 0,
      keys: [],
      failures: read.problems.map((message) => failure('MALFORMED_BUNDLE', null, message)),
      predecessor: null,
      records: [],
      log: null,
    };
  }
  return new BundleCheck(read.bundle, crypto, policy).run();
}

function failure(
  code: EvidenceProblem,
  record: Pick<LedgerRecord, 'sequenceNumber' | 'id'> | { sequenceNumber: number; id: null } | null,
  message: string,
): EvidenceFailure {
  return {
    code,
    reason: PROBLEM_REASONS[code],
    sequenceNumber: record && Number.isInteger(record.sequenceNumber) ? record.sequenceNumber : null,
    recordId: record && typeof record.id === 'string' ? record.id : null,
    message,
  };
}

class BundleCheck {
  private readonly failures: EvidenceFailure[] = [];

  constructor(
    private readonly bundle: EvidenceBundle,
    private readonly crypto: EvidenceCrypto,
    private readonly policy: LogPolicy,
  ) {}

  async run(): Promise<EvidenceVerdict> {
    const { bundle } = this;
    await this.checkKeyHistory(bundle.keyHistory);
    const { from, to } = coveredRange(bundle);
    const predecessor = await this.checkPredecessor(from, to);
    const records = await this.checkRecords(from, to, predecessor.anchor);
    this.checkCertificate();
    const log = await checkEvidenceLog(bundle.log, bundle, this.policy);
    for (const f of log.failures) this.failures.push(failure(f.code, f.record, f.message));
    return {
      valid: this.failures.length === 0,
      firmId: bundle.firmId,
      covered: { fromSequence: from, toSequence: to },
      recordsChecked: bundle.records.length,
      keys: bundle.keyHistory.keys.map(({ fingerprint, validFrom, validUntil, revokedFrom }) => ({
        fingerprint,
        validFrom,
        validUntil,
        revokedFrom,
      })),
      failures: this.failures,
      predecessor: predecessor.verdict,
      records,
      log: log.verdict,
    };
  }

  /** Each fingerprint is its key's, and each key after the first is endorsed by the one before it. */
  private async checkKeyHistory(history: SigningKeyHistory): Promise<void> {
    for (const [i, entry] of history.keys.entries()) {
      const der = base64Bytes(entry.publicKey);
      if (!der || (await this.crypto.sha256Hex(der)) !== entry.fingerprint)
        this.keyFailure(`key ${i + 1}: fingerprint ${entry.fingerprint} is not the SHA-256 of its publicKey`);
      const previous = history.keys[i - 1];
      if (!previous) continue;
      const { endorsement } = entry;
      const endorsed =
        endorsement !== null &&
        endorsement.signedBy === previous.fingerprint &&
        (await this.crypto.verifySignature(
          endorsementText(entry),
          endorsement.signature,
          previous.publicKey,
        ));
      if (!endorsed)
        this.keyFailure(
          `key ${entry.fingerprint} is not endorsed by the key before it (${previous.fingerprint})`,
        );
    }
  }

  private keyFailure(message: string): void {
    this.failures.push(failure('BAD_KEY_HISTORY', null, message));
  }

  /** The record before the range: verified on its own; its chainHash anchors the first record's link. */
  private async checkPredecessor(
    from: number,
    to: number,
  ): Promise<{ anchor: string | null | undefined; verdict: RecordVerdict | null }> {
    const { predecessor } = this.bundle;
    if (from === 1 || to < from) {
      if (predecessor !== null) {
        const verdict = verdictOf(predecessor, ['UNEXPECTED_RECORD']);
        this.failures.push(failure('UNEXPECTED_RECORD', predecessor, 'a predecessor where none belongs'));
        return { anchor: null, verdict };
      }
      return { anchor: null, verdict: null };
    }
    if (predecessor === null) {
      this.failures.push(
        failure(
          'MISSING_RECORD',
          { sequenceNumber: from - 1, id: null },
          `the predecessor (sequence ${from - 1}) is not in the bundle, so the first link cannot be checked`,
        ),
      );
      return { anchor: undefined, verdict: null };
    }
    const problems = await this.checkRecord(predecessor, undefined);
    if (predecessor.sequenceNumber !== from - 1) problems.push('UNEXPECTED_RECORD');
    this.report(predecessor, problems, ' (the predecessor)');
    return { anchor: predecessor.chainHash, verdict: verdictOf(predecessor, problems) };
  }

  private async checkRecords(
    from: number,
    to: number,
    anchor: string | null | undefined,
  ): Promise<RecordVerdict[]> {
    const verdicts: RecordVerdict[] = [];
    let expected = from;
    let previousChainHash = anchor;
    for (const record of this.bundle.records) {
      const sequence = record.sequenceNumber;
      if (!Number.isInteger(sequence) || sequence < expected || sequence > to) {
        const problems = await this.checkRecord(record, undefined);
        problems.push('UNEXPECTED_RECORD');
        this.report(record, problems);
        verdicts.push(verdictOf(record, problems));
        continue;
      }
      if (sequence > expected) {
        this.missing(expected, sequence - 1);
        previousChainHash = undefined;
      }
      const problems = await this.checkRecord(record, previousChainHash);
      this.report(record, problems);
      verdicts.push(verdictOf(record, problems));
      expected = sequence + 1;
      previousChainHash = record.chainHash;
    }
    if (expected <= to) this.missing(expected, to);
    return verdicts;
  }

  /** A record's evidence: its certificate must name the record and have certified exactly its hashes. */
  private checkCertificate(): void {
    const { certificate, records, firmId } = this.bundle;
    if (!certificate) return;
    const record = records.find((r) => r.id === certificate.ledgerRecordId);
    const fields: readonly ('sequenceNumber' | 'recordHash' | 'chainHash' | 'firmId')[] = [
      'sequenceNumber',
      'recordHash',
      'chainHash',
    ];
    const differing = record
      ? fields
          .filter((f) => certificate[f] !== record[f])
          .concat(certificate.firmId === firmId ? [] : ['firmId'])
      : [];
    if (!record)
      this.failures.push(
        failure(
          'CERTIFICATE_MISMATCH',
          null,
          `certificate ${certificate.id} is for record ${certificate.ledgerRecordId}, which is not in the bundle`,
        ),
      );
    else if (differing.length > 0)
      this.failures.push(
        failure(
          'CERTIFICATE_MISMATCH',
          record,
          `certificate ${certificate.id} certified another ${differing.join(', ')} than the record holds`,
        ),
      );
  }

  private missing(first: number, last: number): void {
    const which = first === last ? `record ${first} is` : `records ${first} to ${last} are`;
    this.failures.push(
      failure('MISSING_RECORD', { sequenceNumber: first, id: null }, `${which} missing from the bundle`),
    );
  }

  private report(record: LedgerRecord, problems: readonly EvidenceProblem[], suffix = ''): void {
    for (const code of problems)
      this.failures.push(failure(code, record, MESSAGES[code as keyof typeof MESSAGES] + suffix));
  }

  /** Every problem of one record; `previousChainHash` undefined when its predecessor is unknown. */
  private async checkRecord(
    record: LedgerRecord,
    previousChainHash: string | null | undefined,
  ): Promise<EvidenceProblem[]> {
    const { crypto, bundle } = this;
    const problems: EvidenceProblem[] = [];
    const payload = canonicalText(record);
    if (payload === null || (await crypto.sha256Hex(utf8(payload))) !== record.recordHash)
      problems.push('RECORD_HASH_MISMATCH');
    const chainInput = `${record.previousHash ?? ''}${String(record.recordHash)}`;
    if ((await crypto.sha256Hex(utf8(chainInput))) !== record.chainHash) problems.push('CHAIN_HASH_MISMATCH');
    if (previousChainHash !== undefined && record.previousHash !== previousChainHash)
      problems.push('BROKEN_LINK');
    const signed =
      typeof record.chainHash === 'string' &&
      typeof record.signature === 'string' &&
      typeof record.publicKey === 'string' &&
      (await crypto.verifySignature(record.chainHash, record.signature, record.publicKey));
    if (!signed) problems.push('BAD_SIGNATURE');
    const keyProblem = keyProblemAt(bundle.keyHistory, String(record.publicKey), String(record.timestamp));
    if (keyProblem) problems.push(keyProblem);
    if (record.firmId !== bundle.firmId) problems.push('FIRM_MISMATCH');
    return problems;
  }
}

/** RFC 8785 text of the record's payload, or null when it cannot be canonicalised (it cannot match then). */
function canonicalText(record: LedgerRecord): string | null {
  try {
    return canonicalize(payloadOf(record)) ?? null;
  } catch {
    return null;
  }
}

function verdictOf(record: LedgerRecord, problems: EvidenceProblem[]): RecordVerdict {
  return {
    sequenceNumber: Number.isInteger(record.sequenceNumber) ? record.sequenceNumber : null,
    id: typeof record.id === 'string' ? record.id : null,
    valid: problems.length === 0,
    problems,
  };
}
