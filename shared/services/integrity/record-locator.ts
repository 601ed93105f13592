/**
 * Resolving a record id to the sequence number it concerns, with a bounded number of object-store listings
 * whatever the id: a made-up id must not make the service list a firm's whole immutable store.
 */
import { decodeTime } from 'ulid';
import { ID_PREFIX, isId } from '../../ids.js';
import type { Deps } from '../../runtime/deps.js';
import {
  immutableFirmPrefix,
  immutableSequencePrefix,
  parseImmutableRecordKey,
} from '../../store/immutable-layout.js';
import { padSequence, SEQUENCE_DIGITS } from '../../store/keys.js';
import { readHead, rowsWithRecordId } from '../../store/ledger-store.js';

/**
 * Longest time from a record id's creation to its record's commit, clock differences between hosts included
 * (the id is made in the append attempt that commits it, one signature and one transaction before).
 */
export const ID_LAG_MS = 5 * 60_000;
/** Most copies the search around an id's time lists (besides one key per step of the binary search). */
export const MAX_SEARCHED_COPIES = 1_000;
/** Copies one block listing returns: the key prefix without the sequence number's last two digits. */
const BLOCK = 100;

/**
 * The sequence number a record id concerns: the immutable copy with that id is authoritative (looked up first
 * at the positions of database rows carrying the id, then around the id's time); an id only the database knows
 * (a forged row) resolves to the position of its row; anything else is null.
 */
export async function resolveSequence(deps: Deps, firmId: string, recordId: string): Promise<number | null> {
  const positions = (await rowsWithRecordId(deps, firmId, recordId)).map((row) => row.position);
  for (const position of positions) {
    if ((await copyIdsAt(deps, firmId, position)).includes(recordId)) return position;
  }
  const found = isId('record', recordId) ? await searchByTime(deps, firmId, recordId) : null;
  return found ?? positions[0] ?? null;
}

async function copyIdsAt(deps: Deps, firmId: string, sequenceNumber: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const key of deps.objects.list('immutable', immutableSequencePrefix(firmId, sequenceNumber)))
    ids.push(parseImmutableRecordKey(key)?.recordId ?? '');
  return ids;
}

/** Creation time (ms) of a record id, or null for a string that is not one. */
function idTime(recordId: string): number | null {
  if (!isId('record', recordId)) return null;
  try {
    return decodeTime(recordId.slice(ID_PREFIX.record.length + 1));
  } catch {
    return null;
  }
}

interface Copy {
  sequenceNumber: number;
  recordId: string;
  time: number | null;
}

async function listCopies(deps: Deps, prefix: string): Promise<Copy[]> {
  const copies: Copy[] = [];
  for await (const key of deps.objects.list('immutable', prefix)) {
    const parsed = parseImmutableRecordKey(key);
    if (parsed) copies.push({ ...parsed, time: idTime(parsed.recordId) });
  }
  return copies;
}

/**
 * Ids are ULIDs made at most ID_LAG_MS before their commit, and the chain orders records by commit, so a copy
 * whose id is older than the id's time minus the lag lies below the record, and one younger than its time plus
 * the lag lies above it. A binary search over the copies' key names finds where the id's time falls; blocks of
 * 100 copies are then listed outwards from there until both bounds are passed or MAX_SEARCHED_COPIES were seen.
 */
async function searchByTime(deps: Deps, firmId: string, recordId: string): Promise<number | null> {
  const target = idTime(recordId);
  const { sequenceNumber: head } = await readHead(deps, firmId);
  if (target === null || head === 0) return null;
  const centre = await firstAtOrAfter(deps, firmId, head, target);
  const blockPrefix = (block: number) =>
    `${immutableFirmPrefix(firmId)}${padSequence(block * BLOCK).slice(0, SEQUENCE_DIGITS - 2)}`;
  let down = Math.floor(centre / BLOCK);
  let up = down + 1;
  let downDone = false;
  let upDone = up * BLOCK > head;
  let searched = 0;
  while ((!downDone || !upDone) && searched < MAX_SEARCHED_COPIES) {
    for (const direction of ['down', 'up'] as const) {
      if (direction === 'down' ? downDone : upDone) continue;
      const copies = await listCopies(deps, blockPrefix(direction === 'down' ? down : up));
      searched += copies.length;
      const match = copies.find((copy) => copy.recordId === recordId);
      if (match) return match.sequenceNumber;
      if (direction === 'down') {
        downDone = down === 0 || copies.some((c) => c.time !== null && c.time <= target - ID_LAG_MS);
        down -= 1;
      } else {
        upDone = copies.some((c) => c.time !== null && c.time >= target + ID_LAG_MS);
        up += 1;
        upDone ||= up * BLOCK > head;
      }
    }
  }
  return null;
}

/** The first position in 1..head whose copy's id was made at or after `time` (head when none was), by bisection. */
async function firstAtOrAfter(deps: Deps, firmId: string, head: number, time: number): Promise<number> {
  let low = 1;
  let high = head;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const copies = await listCopies(deps, immutableSequencePrefix(firmId, middle));
    const copyTime = copies[0]?.time ?? null;
    // A position without a readable copy (its copy still in flight) is treated as later than the time.
    if (copyTime !== null && copyTime < time) low = middle + 1;
    else high = middle;
  }
  return low;
}
