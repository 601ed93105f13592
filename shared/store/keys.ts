import { IDEMPOTENCY_PK_PREFIX } from './tables.js';

/** Key builders. Every firm-owned item's partition key starts with the firm id (tenancy by construction). */
export const SEQUENCE_DIGITS = 12;

export function padSequence(sequenceNumber: number): string {
  return String(sequenceNumber).padStart(SEQUENCE_DIGITS, '0');
}

export const keys = {
  firmPk: (firmId: string) => `FIRM#${firmId}`,
  firm: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'FIRM' }),
  user: (firmId: string, userId: string) => ({ pk: `FIRM#${firmId}`, sk: `USER#${userId}` }),
  userEmail: (firmId: string, email: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `USEREMAIL#${email.toLowerCase()}`,
  }),
  userSubject: (firmId: string, subject: string) => ({ pk: `FIRM#${firmId}`, sk: `USERSUB#${subject}` }),
  /** Serialises the changes that can take a firm's last active FIRM_ADMIN away (a version counter). */
  userAdminGuard: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'ADMINGUARD' }),
  documentType: (firmId: string, slug: string) => ({ pk: `FIRM#${firmId}`, sk: `DOCTYPE#${slug}` }),
  apiKey: (firmId: string, keyId: string) => ({ pk: `FIRM#${firmId}`, sk: `APIKEY#${keyId}` }),
  apiKeyHash: (hash: string) => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEYHASH' }),
  verification: (firmId: string, runId: string) => ({ pk: `FIRM#${firmId}`, sk: `VERIFY#${runId}` }),
  integrityCheckpoint: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'INTEGRITY#CHECKPOINT' }),
  /** The firm's ledger-writing token bucket (shared/store/rate-limit-store.ts): one item, `tat` only. */
  writeBucket: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'RATELIMIT#WRITES' }),
  job: (firmId: string, jobId: string) => ({ pk: `FIRM#${firmId}`, sk: `JOB#${jobId}` }),
  /**
   * A job waiting for routing (`RQUEUE#`) or for a senior to pick it up after escalation (`RESCALATED#`),
   * sorted `<rank: 0 URGENT, 1 STANDARD>#<submittedAt>#<jobId>` so one ordered query is the queue.
   */
  reviewQueue: (firmId: string, order: string) => ({ pk: `FIRM#${firmId}`, sk: `RQUEUE#${order}` }),
  reviewEscalated: (firmId: string, order: string) => ({ pk: `FIRM#${firmId}`, sk: `RESCALATED#${order}` }),
  /** Single-use marker of an upload: `UPLOADUSED#<sha256 of the documentKey>`, written with the job. */
  uploadUsed: (firmId: string, documentKeyHash: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `UPLOADUSED#${documentKeyHash}`,
  }),
  /**
   * Index of the APPROVED impact assessment for an AI model: `IAMODEL#<provider>#<version>` holding
   * `{assessmentId}` (see shared/store/impact-assessment-store.ts).
   */
  impactAssessmentModel: (firmId: string, provider: string, version: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `IAMODEL#${provider}#${version}`,
  }),
  /** An impact assessment (the certificates flow fills certificateId on this item). */
  impactAssessment: (firmId: string, assessmentId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `IA#${assessmentId}`,
  }),
  incident: (firmId: string, incidentId: string) => ({ pk: `FIRM#${firmId}`, sk: `INC#${incidentId}` }),
  /** Sorts right after its incident, so one query reads incidents with their remediations. */
  remediation: (firmId: string, incidentId: string, remediationId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `INC#${incidentId}#REM#${remediationId}`,
  }),
  reportLog: (firmId: string, entryId: string) => ({ pk: `FIRM#${firmId}`, sk: `REPORT#${entryId}` }),
  webhook: (firmId: string, webhookId: string) => ({ pk: `FIRM#${firmId}`, sk: `WEBHOOK#${webhookId}` }),
  /** A delivery of one record to one endpoint: `WHDELIVERY#<webhookId>#<deliveryId>` (ULID: newest last). */
  webhookDelivery: (firmId: string, webhookId: string, deliveryId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `WHDELIVERY#${webhookId}#${deliveryId}`,
  }),
  /** Exactly one delivery per (endpoint, record): `WHSEQ#<webhookId>#<12-digit sequence>` → {deliveryId}. */
  webhookDeliveryMarker: (firmId: string, webhookId: string, sequenceNumber: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `WHSEQ#${webhookId}#${padSequence(sequenceNumber)}`,
  }),
  /** A record's issued certificate (at most one per record): `CERT#<recordId>`, what the stats count. */
  certificate: (firmId: string, recordId: string) => ({ pk: `FIRM#${firmId}`, sk: `CERT#${recordId}` }),
  /**
   * The certificate id reserved for a record before its PDF is generated (`CERTRESERVE#<recordId>`): the first
   * writer wins, so a racing request, auto-issue or repeated delivery all converge on one certificate id.
   */
  certificateReservation: (firmId: string, recordId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `CERTRESERVE#${recordId}`,
  }),
  /** Global lookup of a certificate by its id (public verification knows only the id). */
  certificateById: (certificateId: string) => ({ pk: `CERTIFICATE#${certificateId}`, sk: 'CERTIFICATE' }),
  ledgerHead: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'HEAD' }),
  ledgerRecord: (firmId: string, sequenceNumber: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `REC#${padSequence(sequenceNumber)}`,
  }),
  ledgerOutbox: (firmId: string, sequenceNumber: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `OUTBOX#${padSequence(sequenceNumber)}`,
  }),
  /** An append waiting for the firm's sequencer, then its result until the asker collects it. */
  appendIntent: (firmId: string, recordId: string) => ({ pk: `FIRM#${firmId}`, sk: `APPEND#${recordId}` }),
  /**
   * An `Idempotency-Key` of a firm (shared/store/idempotency-store.ts), keyed by the SHA-256 of the key: a
   * partition of its own per key (`IDEMPOTENCY#` leads, so IAM can grant routes that write nothing else only
   * these items), expired by the table's TTL after 24 h.
   */
  idempotencyKey: (firmId: string, keyHash: string) => ({
    pk: `${IDEMPOTENCY_PK_PREFIX}${firmId}#${keyHash}`,
    sk: 'IDEMPOTENCY',
  }),
  /** The firm's sequencer lease: which instance seals and commits the firm's appends, and until when. */
  sequencerLease: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'SEQUENCER' }),
  /**
   * The firm's verifiable log (issue 31; shared/store/log-store.ts): hash tiles `LOGTILE#<level 2>#<index 12>`,
   * the integrated tree `LOGTREE`, checkpoints `CHECKPOINT#<size 12>` and the latest `LOGCHECKPOINT`, witness
   * cosignatures `COSIG#<size 12>#<witness key id>` and, beside the latest checkpoint, each witness's latest
   * `LOGCHECKPOINT#COSIG#<witness key id>` (one Query serves the cosigned checkpoint), and `LOGLEASE`, who
   * integrates and signs the firm's log.
   */
  logTile: (firmId: string, level: number, index: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `LOGTILE#${String(level).padStart(2, '0')}#${padSequence(index)}`,
  }),
  logTree: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'LOGTREE' }),
  checkpoint: (firmId: string, size: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `CHECKPOINT#${padSequence(size)}`,
  }),
  latestCheckpoint: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'LOGCHECKPOINT' }),
  cosignature: (firmId: string, size: number, witnessKeyId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `COSIG#${padSequence(size)}#${witnessKeyId}`,
  }),
  latestCosignature: (firmId: string, witnessKeyId: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `LOGCHECKPOINT#COSIG#${witnessKeyId}`,
  }),
  logLease: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'LOGLEASE' }),
  /**
   * A witness the firm registered (main table, shared/store/witness-store.ts): `WITNESS#<key ID, 8 hex>`; and
   * what the service knows of each witness it submits to, the firm's and the platform's: `WITNESSSTATE#<key ID>`
   * (the size it last acknowledged, the last answer, whether it is refusing).
   */
  witness: (firmId: string, keyId: string) => ({ pk: `FIRM#${firmId}`, sk: `WITNESS#${keyId}` }),
  witnessState: (firmId: string, keyId: string) => ({ pk: `FIRM#${firmId}`, sk: `WITNESSSTATE#${keyId}` }),
  /** The account's checkpoint Sign budget (a GCRA `tat`, shared/services/log-checkpoint-budget.ts). */
  checkpointBudget: () => ({ pk: LOG_BUDGET_PK, sk: 'CHECKPOINTSIGNS' }),
  /** One version of the signing-key history (issue 15), append-only: the highest version is the current one. */
  signingKeyVersion: (version: number) => ({ pk: SIGNING_KEYS_PK, sk: `V#${padSequence(version)}` }),
};

/** The ledger-table partition of the account's checkpoint Sign budget (issue 31). */
export const LOG_BUDGET_PK = 'LOGBUDGET';

/** The ledger-table partition of the log's checkpoint keys (issue 31): `K#<validFrom>#<16 hex of the key's SHA-256>`. */
export const CHECKPOINT_KEYS_PK = 'CHECKPOINTKEYS';

/** The ledger-table partition holding the signing-key history's versions. */
export const SIGNING_KEYS_PK = 'SIGNINGKEYS';

export const SK_PREFIX = {
  user: 'USER#',
  apiKey: 'APIKEY#',
  record: 'REC#',
  verification: 'VERIFY#',
  outbox: 'OUTBOX#',
  appendIntent: 'APPEND#',
  job: 'JOB#',
  reviewQueue: 'RQUEUE#',
  reviewEscalated: 'RESCALATED#',
  certificate: 'CERT#',
  documentType: 'DOCTYPE#',
  impactAssessment: 'IA#',
  incident: 'INC#',
  reportLog: 'REPORT#',
  webhook: 'WEBHOOK#',
  witness: 'WITNESS#',
  witnessState: 'WITNESSSTATE#',
  webhookDelivery: (webhookId: string) => `WHDELIVERY#${webhookId}#`,
  cosignature: (size: number) => `COSIG#${padSequence(size)}#`,
  /** LOGCHECKPOINT and the witnesses' latest cosignatures beside it. */
  latestCheckpoint: 'LOGCHECKPOINT',
} as const;
