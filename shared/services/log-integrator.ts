import { leafHash, type Hash } from '../domain/tlog/hash.js';
import { appendLeaves } from '../domain/tlog/tree.js';
import type { Deps } from '../runtime/deps.js';
import { logger } from '../runtime/logger.js';
import { readHead } from '../store/ledger-store.js';
import {
  advanceLogTree,
  logTileReader,
  putLogTiles,
  readLeafChainHashes,
  readLogTree,
} from '../store/log-store.js';

/**
 * The integrator of a firm's verifiable log (issue 31; docs/architecture.md, "Verifiable log"): extends the
 * firm's RFC 6962 tree (LOGTREE and its tiles, shared/store/log-store.ts) by the records committed since, leaf i
 * being the record of sequence i + 1 with the 32 bytes of its chainHash as leaf data. One step reads LOGTREE, the
 * chain head and the chainHashes of at most `maxLeaves` records from LOGTREE.size + 1 (the head bounds the read:
 * nothing uncommitted is ever covered), appends their leaf hashes with the core's appendLeaves (O(log n + k)
 * tile reads and writes, never a recompute), writes the tiles, then advances LOGTREE conditionally. A crash
 * anywhere leaves LOGTREE where it was (tiles written beyond it are rewritten identically), so the next step
 * repairs it; a lost race (another integrator advanced LOGTREE first) is reported, nothing else done.
 */

/** Leaves one step integrates at most: the one-time build of a large ledger goes in bounded, resumable steps. */
export const MAX_LEAVES_PER_STEP = 10_000;

export interface IntegrationStep {
  /** The tree after the step (unchanged when nothing was integrated). */
  size: number;
  root: Hash | undefined;
  /** The chain head's sequence number as read by the step. */
  head: number;
  /** Leaves this step added. */
  added: number;
  /** A record row in the range was missing or damaged: integration stops before it until it is repaired. */
  gapAt?: number;
  /** Another integrator advanced LOGTREE first; nothing was advanced by this step. */
  lostRace?: boolean;
}

export async function integrateStep(
  deps: Deps,
  firmId: string,
  maxLeaves: number = MAX_LEAVES_PER_STEP,
): Promise<IntegrationStep> {
  const [tree, head] = await Promise.all([readLogTree(deps, firmId), readHead(deps, firmId)]);
  const oldSize = tree?.size ?? 0;
  const base = { size: oldSize, root: tree?.root, head: head.sequenceNumber, added: 0 };
  if (head.sequenceNumber <= oldSize) return base;
  const to = Math.min(head.sequenceNumber, oldSize + maxLeaves);
  const rows = await readLeafChainHashes(deps, firmId, oldSize + 1, to);
  const leaves: Hash[] = [];
  let gapAt: number | undefined;
  for (let position = oldSize + 1; position <= to; position++) {
    const row = rows[position - oldSize - 1];
    const data = row?.position === position ? leafData(row.chainHash) : undefined;
    if (!data) {
      gapAt = position;
      break;
    }
    leaves.push(leafHash(data));
  }
  if (gapAt !== undefined)
    logger.error('The verifiable log stops at a missing or damaged ledger row; it is not skipped', {
      firmId,
      sequenceNumber: gapAt,
      head: head.sequenceNumber,
    });
  if (leaves.length === 0) return { ...base, ...(gapAt !== undefined ? { gapAt } : {}) };
  const next = await appendLeaves(logTileReader(deps, firmId), oldSize, leaves);
  await putLogTiles(deps, firmId, next.tiles);
  if (!(await advanceLogTree(deps, firmId, oldSize, { size: next.size, root: next.root })))
    return { ...base, lostRace: true };
  return {
    size: next.size,
    root: next.root,
    head: head.sequenceNumber,
    added: leaves.length,
    ...(gapAt !== undefined ? { gapAt } : {}),
  };
}

/** The 32 bytes of a row's chainHash (64 lowercase hex), or undefined when the row does not hold one. */
export function leafData(chainHash: unknown): Uint8Array | undefined {
  if (typeof chainHash !== 'string' || !/^[0-9a-f]{64}$/.test(chainHash)) return undefined;
  return Uint8Array.from(Buffer.from(chainHash, 'hex'));
}
