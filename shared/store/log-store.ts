import type { TileReader } from '../domain/tlog/tree.js';
import type { TileRef } from '../domain/tlog/tiles.js';
import type { Deps } from '../runtime/deps.js';
import { putReplacing, writeConditionally, type TransactItem } from './conditional-write.js';
import { queryAll, send } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

/*
 * A firm's verifiable log in the ledger table (issue 31; docs/architecture.md, "Verifiable log"): the hash tiles
 * of its RFC 6962 tree, the integrated tree (LOGTREE), its signed checkpoints and witness cosignatures, and the
 * lease of the one integrator that extends and signs it. The ledger table is append-only by IAM (no UpdateItem):
 * every write is a conditional PutItem (or a transaction of them) through writeConditionally / putReplacing.
 */

const HASH_BYTES = 32;
/** A full tile: final, never rewritten. */
const FULL_WIDTH = 256;

/** A stored checkpoint: the C2SP signed note (checkpoint text and the log's two signature lines). */
export interface StoredCheckpoint {
  size: number;
  root: Uint8Array;
  note: string;
  signedAt: string;
}

/** A witness's cosignature of the checkpoint of `size`: its signed-note signature line. */
export interface StoredCosignature {
  size: number;
  /** The witness key ID, 8 lowercase hex. */
  witnessKeyId: string;
  /** The full signature line, '— <name> <base64>'. */
  line: string;
  witnessName: string;
  cosignedAt: string;
}

/** A tile asked for is not stored at (at least) the width asked for: the tree is not built that far. */
export class LogTileMissingError extends Error {
  constructor(
    readonly firmId: string,
    readonly ref: TileRef,
    readonly storedWidth: number,
  ) {
    super(
      `Log tile ${ref.level}/${ref.index} of firm ${firmId} has width ${storedWidth}, ${ref.width} was asked for`,
    );
  }
}

/**
 * The hash tiles `refs` of the firm's tree, each exactly `ref.width × 32` bytes (the widest stored version,
 * truncated). Strongly consistent Gets, in parallel: a reader asks for O(log n) tiles. Throws LogTileMissingError
 * when a tile is absent or narrower than asked.
 */
export async function readLogTiles(
  deps: Deps,
  firmId: string,
  refs: readonly TileRef[],
): Promise<Uint8Array[]> {
  return Promise.all(
    refs.map(async (ref) => {
      const { Item } = await send(deps.db, 'Get', {
        TableName: deps.tables.ledger,
        Key: keys.logTile(firmId, ref.level, ref.index),
        ConsistentRead: true,
        ProjectionExpression: 'width, hashes',
      });
      const width = (Item?.width as number | undefined) ?? 0;
      const hashes = Item?.hashes as Uint8Array | undefined;
      if (!hashes || width < ref.width || hashes.length < ref.width * HASH_BYTES)
        throw new LogTileMissingError(firmId, ref, width);
      return hashes.slice(0, ref.width * HASH_BYTES);
    }),
  );
}

/** The firm's tiles as the core's TileReader (shared/domain/tlog/tree.ts). */
export function logTileReader(deps: Deps, firmId: string): TileReader {
  return { readTiles: (refs) => readLogTiles(deps, firmId, refs) };
}

/**
 * Stores tiles, each replacing only a narrower version (condition: none stored, or a smaller width): a full tile
 * is final, and a tile is only ever extended. A wider or equal version already there (another integrator, or an
 * earlier run that crashed before advancing LOGTREE) wins; its prefix is the same bytes.
 */
export async function putLogTiles(
  deps: Deps,
  firmId: string,
  tiles: readonly { ref: TileRef; data: Uint8Array }[],
): Promise<void> {
  await Promise.all(
    tiles.map(async ({ ref, data }) => {
      if (data.length !== ref.width * HASH_BYTES)
        throw new Error(`Tile ${ref.level}/${ref.index} holds ${data.length} bytes, not ${ref.width} hashes`);
      if (ref.width < 1 || ref.width > FULL_WIDTH) throw new Error(`Tile width ${ref.width} is out of range`);
      for (let attempt = 1; ; attempt++) {
        const outcome = await writeConditionally(deps, [
          {
            Put: {
              TableName: deps.tables.ledger,
              Item: {
                ...keys.logTile(firmId, ref.level, ref.index),
                level: ref.level,
                index: ref.index,
                width: ref.width,
                hashes: data,
              },
              ConditionExpression: 'attribute_not_exists(pk) OR width < :width',
              ExpressionAttributeValues: { ':width': ref.width },
            },
          },
        ]);
        if (outcome.status !== 'conflict') return;
        if (attempt >= 5) throw new Error(`Writing log tile ${ref.level}/${ref.index} kept conflicting`);
      }
    }),
  );
}

/** The integrated tree (LOGTREE): how many records it covers and its root; undefined before the first. */
export async function readLogTree(
  deps: Deps,
  firmId: string,
): Promise<{ size: number; root: Uint8Array } | undefined> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.logTree(firmId),
    ConsistentRead: true,
  });
  return Item ? { size: Item.size as number, root: Item.root as Uint8Array } : undefined;
}

/**
 * Advances LOGTREE from `oldSize` to `next` (condition: none stored, or its size is still `oldSize`); false when
 * another integrator moved it first (nothing written). Its tiles must be stored before.
 */
export async function advanceLogTree(
  deps: Deps,
  firmId: string,
  oldSize: number,
  next: { size: number; root: Uint8Array },
): Promise<boolean> {
  if (next.size < oldSize) throw new Error(`A log tree never shrinks (${oldSize} → ${next.size})`);
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: {
          ...keys.logTree(firmId),
          size: next.size,
          root: next.root,
          updatedAt: deps.clock.now().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk) OR #size = :old',
        ExpressionAttributeNames: { '#size': 'size' },
        ExpressionAttributeValues: { ':old': oldSize },
      },
    },
  ]);
  return outcome.status === 'committed';
}

function checkpointOf(item: Record<string, unknown> | undefined): StoredCheckpoint | undefined {
  if (!item) return undefined;
  return {
    size: item.size as number,
    root: item.root as Uint8Array,
    note: item.note as string,
    signedAt: item.signedAt as string,
  };
}

/** The latest checkpoint (LOGCHECKPOINT); undefined before the first. */
export async function readLatestCheckpoint(
  deps: Deps,
  firmId: string,
): Promise<StoredCheckpoint | undefined> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.latestCheckpoint(firmId),
    ConsistentRead: true,
  });
  return checkpointOf(Item);
}

/** The checkpoint of exactly `size` records, if one was signed. */
export async function readCheckpointAt(
  deps: Deps,
  firmId: string,
  size: number,
): Promise<StoredCheckpoint | undefined> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.checkpoint(firmId, size),
    ConsistentRead: true,
  });
  return checkpointOf(Item);
}

/**
 * Stores a checkpoint: CHECKPOINT#size (never there before) and LOGCHECKPOINT (none, or a smaller size) in one
 * transaction, so one conditional write decides: never two checkpoints of one size, and the latest never goes
 * down. False when either condition failed (another integrator signed this size or a larger one first).
 */
export async function putCheckpoint(deps: Deps, firmId: string, cp: StoredCheckpoint): Promise<boolean> {
  const attributes = { size: cp.size, root: cp.root, note: cp.note, signedAt: cp.signedAt };
  const items: TransactItem[] = [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.checkpoint(firmId, cp.size), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.ledger,
        // Its cosignatures are kept beside it (readLatestCosigned); a checkpoint stored before that lacks the flag.
        Item: { ...keys.latestCheckpoint(firmId), ...attributes, cosignaturesBeside: true },
        ConditionExpression: 'attribute_not_exists(pk) OR #size < :size',
        ExpressionAttributeNames: { '#size': 'size' },
        ExpressionAttributeValues: { ':size': cp.size },
      },
    },
  ];
  for (let attempt = 1; ; attempt++) {
    const outcome = await writeConditionally(deps, items);
    if (outcome.status === 'committed') return true;
    if (outcome.status === 'condition-failed') return false;
    if (attempt >= 5) throw new Error(`Storing checkpoint ${cp.size} of firm ${firmId} kept conflicting`);
  }
}

/**
 * The latest checkpoint with the cosignatures gathered for its size, in one Query of the key range LOGCHECKPOINT
 * starts: the checkpoint and each witness's latest cosignature beside it (`LOGCHECKPOINT#COSIG#<key id>`, one item
 * per witness, putCosignature), those of its size kept. `cosignatures` is undefined for a checkpoint stored before
 * they were kept beside it (no `cosignaturesBeside`): readCosignatures by size then. Undefined before the first.
 */
export async function readLatestCosigned(
  deps: Deps,
  firmId: string,
): Promise<{ checkpoint: StoredCheckpoint; cosignatures: StoredCosignature[] | undefined } | undefined> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.ledger,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.latestCheckpoint),
    },
    ConsistentRead: true,
  });
  const head = items.find((item) => item.sk === keys.latestCheckpoint(firmId).sk);
  const checkpoint = checkpointOf(head);
  if (!checkpoint) return undefined;
  const cosignatures = head!.cosignaturesBeside
    ? items.filter((item) => item !== head && item.size === checkpoint.size).map(cosignatureOf)
    : undefined;
  return { checkpoint, cosignatures };
}

/** The witness cosignatures gathered for the checkpoint of `size`, by witness key ID. */
export async function readCosignatures(
  deps: Deps,
  firmId: string,
  size: number,
): Promise<StoredCosignature[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.ledger,
    // Not begins_with: DynamoDB Local scans the whole partition for it (./sk-prefix.ts), 100,000 records and all.
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ...skPrefixValues(':prefix', SK_PREFIX.cosignature(size)),
    },
    ConsistentRead: true,
  });
  return items.map(cosignatureOf);
}

function cosignatureOf(item: Record<string, unknown>): StoredCosignature {
  return {
    size: item.size as number,
    witnessKeyId: item.witnessKeyId as string,
    line: item.line as string,
    witnessName: item.witnessName as string,
    cosignedAt: item.cosignedAt as string,
  };
}

/**
 * Keeps a witness's cosignature of a size, twice in one transaction: `COSIG#<size>#<key id>` (the first stored per
 * size and witness stays), and the witness's latest beside LOGCHECKPOINT (replacing a smaller size's), which
 * readLatestCosigned serves with the checkpoint. Either write refused alone (the cosignature kept already; a
 * larger size's beside it) leaves the other to be written by itself, so a retry repairs a half-kept one.
 */
export async function putCosignature(deps: Deps, firmId: string, c: StoredCosignature): Promise<void> {
  if (!/^[0-9a-f]{8}$/.test(c.witnessKeyId)) throw new Error(`Not a witness key ID: ${c.witnessKeyId}`);
  const attributes = {
    size: c.size,
    witnessKeyId: c.witnessKeyId,
    line: c.line,
    witnessName: c.witnessName,
    cosignedAt: c.cosignedAt,
  };
  let items: TransactItem[] = [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.cosignature(firmId, c.size, c.witnessKeyId), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.latestCosignature(firmId, c.witnessKeyId), ...attributes },
        ConditionExpression: 'attribute_not_exists(pk) OR #size < :size',
        ExpressionAttributeNames: { '#size': 'size' },
        ExpressionAttributeValues: { ':size': c.size },
      },
    },
  ];
  for (let attempt = 1; items.length > 0; attempt++) {
    const outcome = await writeConditionally(deps, items);
    if (outcome.status === 'committed') return;
    if (outcome.status === 'condition-failed' && outcome.failedItems.length > 0) {
      items = items.filter((_, index) => !outcome.failedItems.includes(index));
      continue;
    }
    if (attempt >= 5)
      throw new Error(`Keeping the cosignature of ${c.witnessKeyId} for size ${c.size} kept conflicting`);
  }
}

/**
 * The firm's log lease (`LOGLEASE`), the sequencer lease's pattern (./sequencer-lease-store.ts): the one holder
 * integrates and signs, so racing integrators waste no Sign. Only about efficiency: LOGTREE's and the
 * checkpoint's conditional writes keep the log correct whatever the lease says. A holder lets go by putting a
 * released lease that says how far the firm's checkpoints went (`covered`, the size of a checkpoint it knew
 * stored), so a run sent for commits that checkpoint already covers ends on the one read that finds the lease
 * free (shared/services/log-checkpoint-run.ts).
 */
export type LogLeaseState = { held: true } | { held: false; covered: number | undefined };

/**
 * Whether someone holds the lease, by a strongly consistent read; when nobody does, what its last holder said it
 * covered. Most runs of a busy firm find the lease held (its holder keeps it from one checkpoint to the next): the
 * read says so without a write that its condition refuses (DynamoDB Local serialises writes).
 */
export async function readLogLease(deps: Deps, firmId: string): Promise<LogLeaseState> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.logLease(firmId),
    ConsistentRead: true,
  });
  if (Item && typeof Item.until === 'number' && Item.until >= deps.clock.now().getTime())
    return { held: true };
  return { held: false, covered: typeof Item?.covered === 'number' ? Item.covered : undefined };
}

/** Takes the lease if nobody holds it (never taken, released, or run out); false when another run took it. */
export async function takeLogLease(
  deps: Deps,
  firmId: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const now = deps.clock.now().getTime();
  const outcome = await putReplacing(deps, {
    TableName: deps.tables.ledger,
    Item: { ...keys.logLease(firmId), holder, until: now + ttlMs },
    ConditionExpression: 'attribute_not_exists(pk) OR #until < :now',
    ExpressionAttributeNames: { '#until': 'until' },
    ExpressionAttributeValues: { ':now': now },
  });
  return outcome.status === 'committed';
}

/** Extends the lease of its holder; false when it was lost (ran out and was taken). */
export async function renewLogLease(
  deps: Deps,
  firmId: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.logLease(firmId), holder, until: deps.clock.now().getTime() + ttlMs },
        ConditionExpression: 'holder = :me',
        ExpressionAttributeValues: { ':me': holder },
      },
    },
  ]);
  return outcome.status === 'committed';
}

/**
 * Gives the lease up if `holder` still holds it (a released lease has no holder and has run out), saying how
 * far the firm's checkpoints went when the holder knows (`covered`: a checkpoint of that size is stored).
 */
export async function releaseLogLease(
  deps: Deps,
  firmId: string,
  holder: string,
  covered?: number,
): Promise<void> {
  await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.logLease(firmId), until: 0, ...(covered !== undefined ? { covered } : {}) },
        ConditionExpression: 'holder = :me',
        ExpressionAttributeValues: { ':me': holder },
      },
    },
  ]);
}

/** The account's checkpoint Sign budget: its GCRA tat (µs since the epoch), undefined when never used. */
export async function readCheckpointBudget(deps: Deps): Promise<number | undefined> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.ledger,
    Key: keys.checkpointBudget(),
    ConsistentRead: true,
  });
  return Item?.tat as number | undefined;
}

/** Moves the budget's tat from `old` (undefined: none stored) to `next`; false when another moved it first. */
export async function advanceCheckpointBudget(
  deps: Deps,
  old: number | undefined,
  next: number,
): Promise<boolean> {
  const outcome = await writeConditionally(deps, [
    {
      Put: {
        TableName: deps.tables.ledger,
        Item: { ...keys.checkpointBudget(), tat: next },
        ConditionExpression: old === undefined ? 'attribute_not_exists(pk)' : 'tat = :old',
        ...(old === undefined ? {} : { ExpressionAttributeValues: { ':old': old } }),
      },
    },
  ]);
  return outcome.status === 'committed';
}

/**
 * The leaf data of the firm's log for sequence positions [from, to]: each committed record row's chainHash, read
 * by a strongly consistent Query that projects only the sort key and chainHash, ascending. Rows absent from the
 * range are absent from the answer (the caller stops at a gap).
 */
export async function readLeafChainHashes(
  deps: Deps,
  firmId: string,
  from: number,
  to: number,
): Promise<{ position: number; chainHash: unknown }[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.ledger,
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': keys.firmPk(firmId),
      ':from': keys.ledgerRecord(firmId, from).sk,
      ':to': keys.ledgerRecord(firmId, to).sk,
    },
    ProjectionExpression: 'sk, chainHash',
    ConsistentRead: true,
  });
  return items.map((item) => ({
    position: Number((item.sk as string).slice(SK_PREFIX.record.length)),
    chainHash: item.chainHash,
  }));
}
