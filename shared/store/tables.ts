/**
 * The DynamoDB tables, described once. The CDK stack (lib/data) and the embedded stack (bin/local.ts)
 * both create them from this description, so keys and indexes cannot drift apart.
 *
 * - main:   firms, users, API keys and the rest of the firm-scoped state. pk `FIRM#<firmId>` for every
 *           firm-owned item; global lookups (API key hash) live under their own pk.
 * - ledger: the hash chain. pk `FIRM#<firmId>`, sk `REC#<sequence, 12 digits>` for records, `HEAD` for the
 *           chain head (last sequence, chain hash, timestamp) and `OUTBOX#<sequence>` for records whose
 *           immutable copy is not yet confirmed. Its stream (KEYS_ONLY) feeds the tamper watch
 *           (shared/workers/table.ts, `ledger-tamper-watch`): a record row or the head changed outside the
 *           service is flagged within seconds (docs/architecture.md §6c).
 */
export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey?: string;
}

export interface TableDefinition {
  /** Logical name: the CDK construct id and the suffix of the physical name. */
  name: 'main' | 'ledger';
  partitionKey: string;
  sortKey: string;
  indexes: IndexDefinition[];
  /** A Number attribute (Unix seconds) after which DynamoDB's TTL deletes the item, when the table has one. */
  timeToLiveAttribute?: string;
  /** The table's DynamoDB stream, when it has one (a `stream` worker of shared/workers/table.ts reads it). */
  stream?: StreamView;
}

/**
 * What each stream record carries. The ledger's is KEYS_ONLY: the tamper watch judges a change by the row as it
 * is now against its immutable copy (replays and reordering then change nothing), so it needs no image, and no
 * record content leaves the table through the stream.
 */
export type StreamView = 'KEYS_ONLY' | 'NEW_IMAGE' | 'OLD_IMAGE' | 'NEW_AND_OLD_IMAGES';

/**
 * The main table's TTL attribute: only `Idempotency-Key` items set it (24 h after their first request,
 * shared/store/idempotency-store.ts); every other item lives until deleted.
 */
export const TTL_ATTRIBUTE = 'ttl';

/** Partition key prefix of the `Idempotency-Key` items in the main table (their own partitions, keys.ts). */
export const IDEMPOTENCY_PK_PREFIX = 'IDEMPOTENCY#';
/** The IAM `dynamodb:LeadingKeys` pattern of every `Idempotency-Key` item (lib/data.ts). */
export const IDEMPOTENCY_LEADING_KEYS = `${IDEMPOTENCY_PK_PREFIX}*`;

export const LEDGER_BY_RECORD_ID = 'byRecordId';
export const LEDGER_PENDING_ARCHIVE = 'pendingArchive';
/**
 * Sparse index of the main table's items a sweep must look at: review jobs for the SLA sweep, `sweepKind` SLA
 * (unfinished, not yet breached; sweepDue `<slaDeadline>#<firmId>#<jobId>`) or COMPLETION (decision recorded,
 * outcome not yet written; sweepDue `<decidedAt>#<firmId>#<jobId>`), see shared/services/review/sla-sweep.ts; and
 * running verification runs for the verification sweep, `sweepKind` VERIFY (sweepDue
 * `<last progress>#<firmId>#<runId>`), see shared/services/integrity/verification-sweep.ts. The name is the
 * deployed index's (renaming a GSI replaces it).
 */
export const MAIN_JOB_SWEEP = 'jobSweep';

/**
 * The records list's indexes (issue 14): one per equality filter plus one by time, all sorted by `recTs`
 * (`<timestamp>#<12-digit seq>`, so a date range is a key condition on each). Every record row carries their
 * attributes, computed in one place: recordIndexAttributes (shared/store/record-index.ts).
 */
export const LEDGER_RECORD_INDEXES = {
  byTime: { indexName: 'recordsByTime', partitionKey: 'recFirm', sortKey: 'recTs' },
  eventType: { indexName: 'recordsByEventType', partitionKey: 'recEventType', sortKey: 'recTs' },
  actorId: { indexName: 'recordsByActor', partitionKey: 'recActor', sortKey: 'recTs' },
  documentHash: { indexName: 'recordsByDocumentHash', partitionKey: 'recDocHash', sortKey: 'recTs' },
  documentReference: { indexName: 'recordsByDocumentReference', partitionKey: 'recDocRef', sortKey: 'recTs' },
} as const satisfies Record<string, Required<IndexDefinition>>;

/**
 * The firm lists of the main table (issue 14), all sorted by `listSk` (`<time>#<id>`): `firmLists` (pk
 * `listPk`, e.g. `FIRM#<firmId>#JOB`) holds each kind's whole list, `firmListsFiltered` (pk `filterPk`, e.g.
 * `FIRM#<firmId>#JOB#STATUS#<status>`) one filter of it, `firmListsByReference` (pk `referencePk`) a lookup
 * by a firm-assigned reference (jobs by clientReference). Attributes: shared/store/list-attributes.ts.
 */
export const MAIN_LISTS = { indexName: 'firmLists', partitionKey: 'listPk', sortKey: 'listSk' } as const;
export const MAIN_LISTS_FILTERED = {
  indexName: 'firmListsFiltered',
  partitionKey: 'filterPk',
  sortKey: 'listSk',
} as const;
export const MAIN_LISTS_BY_REFERENCE = {
  indexName: 'firmListsByReference',
  partitionKey: 'referencePk',
  sortKey: 'listSk',
} as const;

export const TABLES: readonly TableDefinition[] = [
  {
    name: 'main',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [
      { indexName: MAIN_JOB_SWEEP, partitionKey: 'sweepKind', sortKey: 'sweepDue' },
      MAIN_LISTS,
      MAIN_LISTS_FILTERED,
      MAIN_LISTS_BY_REFERENCE,
    ],
    timeToLiveAttribute: TTL_ATTRIBUTE,
  },
  {
    name: 'ledger',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [
      { indexName: LEDGER_BY_RECORD_ID, partitionKey: 'id' },
      { indexName: LEDGER_PENDING_ARCHIVE, partitionKey: 'pendingArchive', sortKey: 'pendingSince' },
      ...Object.values(LEDGER_RECORD_INDEXES),
    ],
    stream: 'KEYS_ONLY',
  },
];

/** Physical table name of a stage: `gls-<stage>-<table>` (the embedded stack is stage `local`). */
export function tableName(stage: string, table: TableDefinition['name']): string {
  return `gls-${stage}-${table}`;
}
