/**
 * The storage work of incident appends in the most favourable schedule (bench/append-ceiling, bench/rate-limits):
 * bare DynamoDB calls from the bench process, every batch as large as one transaction allows, each asker looking
 * once, no lease calls, no condition pre-check, no retries, no waits, no signer latency, no HTTP. Three item sets:
 *
 *   cross-instance:  today's (per append the intent put, the record row with its indexes, the outbox entry, the
 *                    intent's delete, the incident, the counter delta summed per batch, the copy, the outbox
 *                    entry's delete, one look; per round the intents read and the webhook endpoints read);
 *   no outbox:       the same without the outbox entry (its put and its delete): the most any outbox design could
 *                    save;
 *   single process:  no intent, no look, no outbox: what a design could do if appends never had to cross
 *                    instances, which Lambda instances must (they share nothing but the stores).
 *
 * A chain is written only by its Chain (its head is this process's): give each its own firm.
 */
import { createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { actorOf, type Principal } from '../../shared/domain/auth/principal.js';
import { incidentMetadata } from '../../shared/domain/governance/incidents.js';
import { newIncident } from '../../shared/services/incidents.js';
import { newId } from '../../shared/ids.js';
import {
  canonicalJson,
  computeChainHash,
  computeRecordHash,
  signedMessage,
} from '../../shared/ledger/hashing.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { placeBatch, planBatch, type PendingAppend } from '../../shared/ledger-writer/append-batch.js';
import { subscribersOfFirm } from '../../shared/ledger-writer/dispatch.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { isAdditive, mergeAdditive } from '../../shared/store/additive-updates.js';
import { committedIntentItem, listIntents, putIntent } from '../../shared/store/append-intent-store.js';
import { writeConditionally, type TransactItem } from '../../shared/store/conditional-write.js';
import { incidentCounterItems } from '../../shared/store/counter-store.js';
import { immutableRecordKey } from '../../shared/store/immutable-layout.js';
import { incidentPutItem } from '../../shared/store/incident-store.js';
import { clearOutboxes, outboxItem } from '../../shared/store/ledger-outbox-store.js';
import { getRecordById, headAt, readHead, type ChainHead } from '../../shared/store/ledger-store.js';
import { headItem, recordItem } from '../../shared/store/ledger-writes.js';

export type Schedule = 'cross-instance' | 'no outbox' | 'single process';
export const SCHEDULES: readonly Schedule[] = ['cross-instance', 'no outbox', 'single process'];

export interface Chain {
  deps: Deps;
  firmId: string;
  head: ChainHead;
  key: KeyObject;
  /** The key's SPKI, base64, as a record carries it (records as large as the product's). */
  publicKey: string;
}

/** One incident append, as the service builds it (the incident and its counter delta commit with the record). */
export function incidentAppend(chain: Chain, n: number): PendingAppend {
  const principal: Principal = {
    kind: 'apiKey',
    firmId: chain.firmId,
    keyId: 'key_bench',
    name: 'Bench key',
  };
  const incident = newIncident(
    principal,
    {
      title: `Incident ${n}`,
      description: 'bench',
      severity: 'LOW',
      category: 'OPERATIONAL',
      affectedReviewJobIds: [],
      affectedLedgerRecordIds: [],
      metadata: {},
    },
    new Date().toISOString(),
  );
  return {
    recordId: newId('record'),
    firmId: chain.firmId,
    eventType: 'INCIDENT_LOGGED',
    actor: actorOf(principal),
    documentHash: '',
    documentMetadata: incidentMetadata(incident),
    reviewJobId: null,
    requestedAt: new Date().toISOString(),
    extras: [
      incidentPutItem(chain.deps, incident),
      ...incidentCounterItems(chain.deps, chain.firmId, incident.id, null, incident),
    ],
    timestampToken: 'unused',
  };
}

/** Places, hashes and signs `batch` after the chain's head. */
function seal(chain: Chain, batch: readonly PendingAppend[]): { record: LedgerRecord; body: string }[] {
  let previousHash = chain.head.chainHash;
  return placeBatch(batch, chain.head).map((payload) => {
    const recordHash = computeRecordHash(payload);
    const chainHash = computeChainHash(previousHash, recordHash);
    const signature = sign('sha256', signedMessage(chainHash), { key: chain.key, dsaEncoding: 'der' });
    const record = {
      ...payload,
      previousHash,
      recordHash,
      chainHash,
      signature: signature.toString('base64'),
      publicKey: chain.publicKey,
    } as LedgerRecord;
    previousHash = chainHash;
    return { record, body: canonicalJson(record) };
  });
}

/**
 * One round: `count` appends (numbered from `first`) through `schedule`'s calls, every batch as large as one
 * transaction allows, each asker looking once.
 */
export async function idealRound(
  chain: Chain,
  schedule: Schedule,
  count: number,
  first: number,
): Promise<void> {
  const { deps, firmId } = chain;
  const appends = Array.from({ length: count }, (_, i) => incidentAppend(chain, first + i));
  const crossing = schedule !== 'single process';
  const outbox = schedule === 'cross-instance';
  if (crossing) await Promise.all(appends.map((append) => putIntent(deps, append)));
  const [waiting] = await Promise.all([
    crossing ? listIntents<PendingAppend>(deps, firmId, 100, '0').then((r) => r.pending) : appends,
    subscribersOfFirm(deps, firmId),
  ]);
  let rest = [...waiting].sort((a, b) => (a.recordId < b.recordId ? -1 : 1));
  const committed: { record: LedgerRecord; body: string }[] = [];
  while (rest.length > 0) {
    // planBatch counts a record row and an outbox entry per append; the intent's delete adds one item, and
    // a schedule without the outbox takes its entry back.
    const planned = planBatch(rest, () => (crossing ? 1 : 0) - (outbox ? 0 : 1));
    rest = planned.rest;
    const sealed = seal(chain, planned.batch);
    const extras = planned.batch.flatMap((append) => append.extras);
    const items: TransactItem[] = [
      headItem(deps, sealed.at(-1)!.record, chain.head),
      ...sealed.flatMap(({ record, body }, i) => [
        recordItem(deps, record),
        ...(outbox ? [outboxItem(deps, record, body)] : []),
        ...(crossing ? [committedIntentItem(deps, planned.batch[i]!)] : []),
      ]),
      ...extras.filter((item) => !isAdditive(item)),
      ...(extras.some(isAdditive) ? [mergeAdditive(extras.filter(isAdditive))] : []),
    ];
    const outcome = await writeConditionally(deps, items);
    if (outcome.status !== 'committed')
      throw new Error(`A bench batch did not commit: ${JSON.stringify(outcome)}`);
    chain.head = headAt(sealed.at(-1)!.record);
    committed.push(...sealed);
  }
  await Promise.all([
    ...(crossing
      ? appends.map(async (append) => {
          if (!(await getRecordById(deps, firmId, append.recordId)))
            throw new Error('A record was not found');
        })
      : []),
    (async () => {
      await Promise.all(
        committed.map(({ record, body }) =>
          deps.objects.put(
            'immutable',
            immutableRecordKey(firmId, record.sequenceNumber, record.id),
            new TextEncoder().encode(body),
            'application/json',
          ),
        ),
      );
      if (outbox)
        await clearOutboxes(
          deps,
          firmId,
          committed.map(({ record }) => record.sequenceNumber),
        );
    })(),
  ]);
}

/** A chain for `firmId` (a firm of its own), from its head now, signed with a fresh P-256 key. */
export async function newChain(deps: Deps, firmId: string): Promise<Chain> {
  const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'der' }).toString('base64');
  return { deps, firmId, head: await readHead(deps, firmId), key, publicKey };
}
