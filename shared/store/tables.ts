/**
 * The DynamoDB tables, described once. The CDK stack (lib/data) and the embedded stack (bin/local.ts)
 * both create them from this description, so keys and indexes cannot drift apart.
 *
 * - main:   firms, users, API keys and the rest of the firm-scoped state. pk `FIRM#<firmId>` for every
 *           firm-owned item; global lookups (API key hash) live under their own pk.
 * - ledger: the hash chain. pk `FIRM#<firmId>`, sk `REC#<sequence, 12 digits>` for records, `HEAD` for the
 *           chain head (last sequence, chain hash, timestamp) and `OUTBOX#<sequence>` for records whose
 *           immutable copy is not yet confirmed.
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
}

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
 * Sparse index of review jobs the SLA sweep must look at: `sweepKind` SLA (unfinished, not yet breached;
 * sweepDue `<slaDeadline>#<firmId>#<jobId>`) or COMPLETION (decision recorded, outcome not yet written;
 * sweepDue `<decidedAt>#<firmId>#<jobId>`). See shared/services/review/sla-sweep.ts.
 */
export const MAIN_JOB_SWEEP = 'jobSweep';

export const TABLES: readonly TableDefinition[] = [
  {
    name: 'main',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [{ indexName: MAIN_JOB_SWEEP, partitionKey: 'sweepKind', sortKey: 'sweepDue' }],
    timeToLiveAttribute: TTL_ATTRIBUTE,
  },
  {
    name: 'ledger',
    partitionKey: 'pk',
    sortKey: 'sk',
    indexes: [
      { indexName: LEDGER_BY_RECORD_ID, partitionKey: 'id' },
      { indexName: LEDGER_PENDING_ARCHIVE, partitionKey: 'pendingArchive', sortKey: 'pendingSince' },
    ],
  },
];

/** Physical table name of a stage: `gls-<stage>-<table>` (the embedded stack is stage `local`). */
export function tableName(stage: string, table: TableDefinition['name']): string {
  return `gls-${stage}-${table}`;
}
