import type { CertificateMetadata } from '../domain/certificates/content.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally } from './conditional-write.js';
import { LOST_RACE, retryOnLostRace } from './lost-race.js';
import { certificateCounterItem } from './counter-store.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import {
  certificateListAttributes,
  firmListQuery,
  LIST_ATTRIBUTES,
  listPartition,
} from './list-attributes.js';
import type { ListQuery } from './list-page.js';
import { MAIN_LISTS } from './tables.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/**
 * An issued certificate: `FIRM#<firmId>` / `CERT#<recordId>` in the main table (one per record by key), plus
 * the global lookup `CERTIFICATE#<id>` holding `{firmId, ledgerRecordId}` for public verification.
 * The presigned pdfUrl is not stored: it is minted on every read.
 */
export interface CertificateItem {
  id: string;
  ledgerRecordId: string;
  firmId: string;
  firmName: string;
  firmFrnNumber: string;
  issuedAt: string;
  verificationUrl: string;
  pdfStorageKey: string;
  metadata: CertificateMetadata;
  /** What was certified, so verification can tell a row changed since issue from one that never matched. */
  sequenceNumber: number;
  recordHash: string;
  chainHash: string;
}

export interface Reservation {
  certificateId: string;
  reservedAt: string;
}

/** Attempts of a certificate write that meets concurrent transactions (backoff up to 200 ms between them). */
const CONFLICT_ATTEMPTS = 8;

/**
 * Reserves `candidate` as the record's certificate id, unless one is already reserved: the first writer wins
 * and every later caller (a racing worker, a repeated delivery, a retry after a crash) gets the same id.
 */
export async function reserveCertificateId(
  deps: Deps,
  firmId: string,
  recordId: string,
  candidate: Reservation,
): Promise<Reservation> {
  // A conflict (a concurrent transaction on the item) commits nothing: try again after a jittered backoff.
  const outcome = await retryOnLostRace(
    async () => {
      const attempt = await writeConditionally(deps, [
        {
          Put: {
            TableName: deps.tables.main,
            Item: { ...keys.certificateReservation(firmId, recordId), recordId, ...candidate },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ]);
      return attempt.status === 'conflict' ? LOST_RACE : attempt;
    },
    {
      attempts: CONFLICT_ATTEMPTS,
      exhausted: () => new Error(`Certificate reservation of ${recordId} met a concurrent transaction`),
    },
  );
  if (outcome.status === 'committed') return candidate;
  const existing = await getReservation(deps, firmId, recordId);
  if (!existing) throw new Error(`Certificate reservation of ${recordId} vanished`);
  return existing;
}

export async function getReservation(
  deps: Deps,
  firmId: string,
  recordId: string,
): Promise<Reservation | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.certificateReservation(firmId, recordId),
    ConsistentRead: true,
  });
  return Item ? { certificateId: Item.certificateId as string, reservedAt: Item.reservedAt as string } : null;
}

/**
 * Saves an issued certificate and its global lookup in one transaction, each only if absent. Returns false
 * when the certificate was already saved (a repeated delivery that got this far).
 */
export async function saveCertificate(deps: Deps, certificate: CertificateItem): Promise<boolean> {
  // A conflict commits nothing: trying the same conditional items again is safe. Different certificates can
  // meet on a counter shard, so they try again after a jittered, growing backoff (before, five immediate tries
  // could all meet the same contention, and the message's redelivery rendered the PDF again) before the message
  // is failed (and redelivered).
  return retryOnLostRace(
    async () => {
      const outcome = await saveOnce(deps, certificate);
      return outcome.status === 'conflict' ? LOST_RACE : outcome.status === 'committed';
    },
    {
      attempts: CONFLICT_ATTEMPTS,
      exhausted: () => new Error(`Saving certificate ${certificate.id} met a concurrent transaction`),
    },
  );
}

function saveOnce(deps: Deps, certificate: CertificateItem) {
  return writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.main,
        Item: {
          ...keys.certificate(certificate.firmId, certificate.ledgerRecordId),
          ...certificate,
          ...certificateListAttributes(certificate),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.main,
        Item: {
          ...keys.certificateById(certificate.id),
          firmId: certificate.firmId,
          ledgerRecordId: certificate.ledgerRecordId,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    // GET /v1/firm/me/stats counts it here, exactly once: only a save that commits adds (issue 14).
    certificateCounterItem(deps, certificate.firmId, certificate.ledgerRecordId),
  ]);
}

export async function getCertificateForRecord(
  deps: Deps,
  firmId: string,
  recordId: string,
): Promise<CertificateItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.certificate(firmId, recordId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item, LIST_ATTRIBUTES) as unknown as CertificateItem) : null;
}

/** A certificate by id, whichever firm it belongs to (public verification); callers check the firm. */
export async function getCertificateById(deps: Deps, certificateId: string): Promise<CertificateItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.certificateById(certificateId),
  });
  if (!Item) return null;
  const certificate = await getCertificateForRecord(
    deps,
    Item.firmId as string,
    Item.ledgerRecordId as string,
  );
  return certificate?.id === certificateId ? certificate : null;
}

/** The firm's certificates newest first (issuedAt, then id), as a list query (issue 14). */
export function certificateListQuery(deps: Deps, firmId: string): ListQuery {
  return firmListQuery(deps, firmId, {
    index: MAIN_LISTS,
    partition: listPartition.certificates(firmId),
    skPrefix: SK_PREFIX.certificate,
  });
}

/** A certificate item read from a list. */
export const certificateOf = (item: Record<string, unknown>) =>
  withoutKeys(item, LIST_ATTRIBUTES) as unknown as CertificateItem;

/**
 * Sets `certificateId` on an existing item whose certificateId is still null (or absent): a review job
 * (`JOB#<id>`) or an impact assessment (`IA#<id>`). Never creates the item, never replaces another id.
 * Returns false when the condition did not hold.
 */
export async function linkCertificate(
  deps: Deps,
  key: { pk: string; sk: string },
  certificateId: string,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: key,
        UpdateExpression: 'SET certificateId = :id',
        ConditionExpression:
          'attribute_exists(pk) AND (attribute_not_exists(certificateId) OR certificateId = :null OR certificateId = :id)',
        ExpressionAttributeValues: { ':id': certificateId, ':null': null },
      },
    },
  ]);
  // A transaction in progress on the job or assessment: fail the message, so its redelivery links again.
  if (outcome.status === 'conflict')
    throw new Error(`Linking certificate ${certificateId} met a transaction`);
  return outcome.status === 'committed';
}

/** The impact assessment item (`FIRM#<firmId>` / `IA#<assessmentId>`, owned by the governance area). */
export function impactAssessmentKey(firmId: string, assessmentId: string): { pk: string; sk: string } {
  return { pk: keys.firmPk(firmId), sk: `IA#${assessmentId}` };
}

/** The ledger record ids of the firm's certificates (keys only; for the counters' recount). */
export async function certificateRecordIds(deps: Deps, firmId: string): Promise<string[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.certificate),
    },
    ProjectionExpression: 'sk',
    ConsistentRead: true,
  });
  return items.map((item) => String(item.sk).slice(SK_PREFIX.certificate.length));
}
