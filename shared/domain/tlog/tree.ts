import { emptyRoot, HASH_SIZE, nodeHash, type Hash } from './hash.js';
import {
  hashesAtLevel,
  MAX_TILE_LEVEL,
  TILE_HEIGHT,
  TILE_WIDTH,
  tileWidthAt,
  type TileRef,
} from './tiles.js';

/**
 * Building and reading a firm's Merkle tree through its C2SP tiles. Every function plans the hashes it needs,
 * reads the tiles that hold them in ONE `readTiles` call, then computes: O(log n) tiles for a root or a proof
 * (at most a few per tile level), O(log n + k/256) for an append of k leaves. Proofs are RFC 6962 §2.1.1
 * (inclusion) and §2.1.2 (consistency) / RFC 9162 §2.1.3-2.1.4.
 */

/** Reads hash tiles: for each ref exactly `ref.width * 32` bytes (a store keeps a tile's widest version and truncates). */
export interface TileReader {
  readTiles(refs: readonly TileRef[]): Promise<Uint8Array[]>;
}

export interface AppendResult {
  /** The tiles that changed or appeared, each with its full contents at its new width. */
  tiles: { ref: TileRef; data: Uint8Array }[];
  size: number;
  root: Hash;
}

/** A request the tree cannot answer: a size, index or leaf hash out of range. */
export class TreeRequestError extends Error {
  override name = 'TreeRequestError';
}

/** A tile reader broke its contract (wrong number of tiles, wrong length). */
export class TileDataError extends Error {
  override name = 'TileDataError';
}

/** A complete subtree: 2^height leaves from leaf index * 2^height. */
interface Node {
  height: number;
  index: number;
}

/** A half-open leaf range [lo, hi). */
type Range = readonly [number, number];

function checkSize(size: number, what = 'tree size'): void {
  if (!Number.isSafeInteger(size) || size < 0)
    throw new TreeRequestError(`${what} ${size} is not a valid size`);
}

/** The largest power of two strictly below n (n ≥ 2): RFC 6962's split point k. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees that make up [lo, hi), largest first. Every range RFC 6962's recursion produces starts on
 * a multiple of its largest subtree, so each piece is aligned.
 */
function subtreesOf([lo, hi]: Range): Node[] {
  const nodes: Node[] = [];
  let at = lo;
  while (at < hi) {
    let size = 1;
    let height = 0;
    while (size * 2 <= hi - at) {
      size *= 2;
      height += 1;
    }
    if (at % size !== 0) throw new Error(`range [${lo}, ${hi}) is not aligned`);
    nodes.push({ height, index: at / size });
    at += size;
  }
  return nodes;
}

/** Where a node's hash comes from: `count` consecutive entries of one tile, hashed pairwise up to one. */
interface NodeSource {
  key: string;
  ref: TileRef;
  offset: number;
  count: number;
}

/** The tile (as wide as it is in a tree of `size`) holding the hashes under `node`. */
function sourceOf(node: Node, size: number): NodeSource {
  const level = Math.floor(node.height / TILE_HEIGHT);
  const span = 2 ** (node.height - level * TILE_HEIGHT);
  const first = node.index * span; // index of the first entry among level `level`'s hashes
  const index = Math.floor(first / TILE_WIDTH);
  const width = tileWidthAt(size, level, index);
  const offset = first - index * TILE_WIDTH;
  if (offset + span > width)
    throw new Error(`node ${node.height}/${node.index} is not in a tree of size ${size}`);
  return { key: `${level}/${index}`, ref: { level, index, width }, offset, count: span };
}

/** Hashes `count` (a power of two) consecutive 32-byte entries of `data` from `offset` up to their subtree root. */
function subtreeRoot(data: Uint8Array, offset: number, count: number): Hash {
  let layer: Hash[] = [];
  for (let i = 0; i < count; i += 1) {
    layer.push(data.subarray((offset + i) * HASH_SIZE, (offset + i + 1) * HASH_SIZE));
  }
  while (layer.length > 1) {
    const next: Hash[] = [];
    for (let i = 0; i < layer.length; i += 2) next.push(nodeHash(layer[i] as Hash, layer[i + 1] as Hash));
    layer = next;
  }
  return layer[0] as Hash;
}

async function readChecked(reader: TileReader, refs: readonly TileRef[]): Promise<Uint8Array[]> {
  if (refs.length === 0) return [];
  const data = await reader.readTiles(refs);
  if (data.length !== refs.length) {
    throw new TileDataError(`asked for ${refs.length} tiles, the reader returned ${data.length}`);
  }
  refs.forEach((ref, i) => {
    const got = data[i]?.length;
    if (got !== ref.width * HASH_SIZE) {
      throw new TileDataError(`tile ${ref.level}/${ref.index} width ${ref.width}: ${got} bytes`);
    }
  });
  return data;
}

/**
 * The Merkle tree hash of each range, each range drawn from a tree of `size` leaves: reads every tile involved in
 * one call, then folds each range's complete subtrees right to left (RFC 6962's MTH).
 */
async function rangeHashes(reader: TileReader, size: number, ranges: readonly Range[]): Promise<Hash[]> {
  const perRange = ranges.map((range) => subtreesOf(range).map((node) => sourceOf(node, size)));
  const refs = new Map<string, TileRef>();
  for (const sources of perRange) for (const s of sources) refs.set(s.key, s.ref);
  const keys = [...refs.keys()];
  const data = await readChecked(reader, [...refs.values()]);
  const byKey = new Map(keys.map((key, i) => [key, data[i] as Uint8Array]));
  return perRange.map((sources) => {
    const hashes = sources.map((s) => subtreeRoot(byKey.get(s.key) as Uint8Array, s.offset, s.count));
    let acc = hashes[hashes.length - 1] as Hash;
    for (let i = hashes.length - 2; i >= 0; i -= 1) acc = nodeHash(hashes[i] as Hash, acc);
    return acc;
  });
}

/** The root of the tree of `size` leaves (the empty root for 0). */
export async function treeRoot(reader: TileReader, size: number): Promise<Hash> {
  checkSize(size);
  if (size === 0) return emptyRoot();
  const [root] = await rangeHashes(reader, size, [[0, size]]);
  return root as Hash;
}

/** RFC 6962 PATH(m, D[0:n]) as ranges, the leaf's sibling first. */
function inclusionRanges(index: number, size: number): Range[] {
  const ranges: Range[] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (index < lo + k) {
      ranges.push([lo + k, hi]);
      hi = lo + k;
    } else {
      ranges.push([lo, lo + k]);
      lo += k;
    }
  }
  return ranges.reverse();
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves (RFC 6962 §2.1.1). */
export async function inclusionProof(reader: TileReader, index: number, size: number): Promise<Hash[]> {
  checkSize(size);
  if (!Number.isSafeInteger(index) || index < 0 || index >= size) {
    throw new TreeRequestError(`leaf index ${index} is not in a tree of size ${size}`);
  }
  return rangeHashes(reader, size, inclusionRanges(index, size));
}

/** RFC 6962 SUBPROOF(m, D[0:n], true) as ranges, innermost first. */
function consistencyRanges(oldSize: number, newSize: number): Range[] {
  if (oldSize === 0 || oldSize === newSize) return [];
  const ranges: Range[] = [];
  let m = oldSize;
  let lo = 0;
  let hi = newSize;
  let complete = true; // b: the old tree is a complete subtree seen from the root
  for (;;) {
    if (m === hi - lo) {
      if (!complete) ranges.push([lo, hi]);
      break;
    }
    const k = splitPoint(hi - lo);
    if (m <= k) {
      ranges.push([lo + k, hi]);
      hi = lo + k;
    } else {
      ranges.push([lo, lo + k]);
      m -= k;
      lo += k;
      complete = false;
    }
  }
  return ranges.reverse();
}

/**
 * The consistency proof from the tree of `oldSize` leaves to the tree of `newSize` (RFC 6962 §2.1.2). Empty when
 * the sizes are equal or `oldSize` is 0 (the empty tree is a prefix of every tree; C2SP tlog-witness sends none).
 */
export async function consistencyProof(
  reader: TileReader,
  oldSize: number,
  newSize: number,
): Promise<Hash[]> {
  checkSize(oldSize, 'old size');
  checkSize(newSize, 'new size');
  if (oldSize > newSize) throw new TreeRequestError(`old size ${oldSize} is larger than new size ${newSize}`);
  return rangeHashes(reader, newSize, consistencyRanges(oldSize, newSize));
}

/** Remembers the tiles it has seen (their widest version) and truncates, so a later read costs no I/O. */
function cachingReader(reader: TileReader, known: Map<string, Uint8Array>): TileReader {
  return {
    async readTiles(refs) {
      const missing = refs.filter(
        (r) => (known.get(`${r.level}/${r.index}`)?.length ?? 0) < r.width * HASH_SIZE,
      );
      const fetched = await readChecked(reader, missing);
      missing.forEach((r, i) => known.set(`${r.level}/${r.index}`, fetched[i] as Uint8Array));
      return refs.map((r) =>
        (known.get(`${r.level}/${r.index}`) as Uint8Array).subarray(0, r.width * HASH_SIZE),
      );
    },
  };
}

/**
 * Appends `leafHashes` to the tree of `oldSize` leaves: the tiles that changed or appeared (each complete at its
 * new width), the new size and root. Reads only the old right-edge partial tile of each level, in one call.
 */
export async function appendLeaves(
  reader: TileReader,
  oldSize: number,
  leafHashes: readonly Hash[],
): Promise<AppendResult> {
  checkSize(oldSize, 'old size');
  leafHashes.forEach((h, i) => {
    if (h.length !== HASH_SIZE) throw new TreeRequestError(`leaf hash ${i} is ${h.length} bytes, not 32`);
  });
  const newSize = oldSize + leafHashes.length;
  checkSize(newSize, 'new size');

  // The old right-edge partial tiles: extended where new hashes land, the root's right edge where none do.
  const partials: TileRef[] = [];
  for (let level = 0; level <= MAX_TILE_LEVEL && hashesAtLevel(oldSize, level) > 0; level += 1) {
    const count = hashesAtLevel(oldSize, level);
    if (count % TILE_WIDTH !== 0) {
      partials.push({ level, index: Math.floor(count / TILE_WIDTH), width: count % TILE_WIDTH });
    }
  }
  const known = new Map<string, Uint8Array>();
  const old = await readChecked(reader, partials);
  partials.forEach((ref, i) => known.set(`${ref.level}/${ref.index}`, old[i] as Uint8Array));

  const tiles: { ref: TileRef; data: Uint8Array }[] = [];
  let incoming: readonly Hash[] = leafHashes; // new hashes of this level, in order
  for (let level = 0; incoming.length > 0; level += 1) {
    const oldCount = hashesAtLevel(oldSize, level);
    const newCount = oldCount + incoming.length;
    const completed: Hash[] = [];
    for (let index = Math.floor(oldCount / TILE_WIDTH); index * TILE_WIDTH < newCount; index += 1) {
      const start = index * TILE_WIDTH;
      const width = Math.min(TILE_WIDTH, newCount - start);
      const data = new Uint8Array(width * HASH_SIZE);
      const kept = Math.max(0, oldCount - start); // entries this tile already had
      if (kept > 0) data.set((known.get(`${level}/${index}`) as Uint8Array).subarray(0, kept * HASH_SIZE), 0);
      for (let i = kept; i < width; i += 1) data.set(incoming[start + i - oldCount] as Hash, i * HASH_SIZE);
      const ref = { level, index, width };
      tiles.push({ ref, data });
      known.set(`${level}/${index}`, data);
      if (width === TILE_WIDTH) completed.push(subtreeRoot(data, 0, TILE_WIDTH));
    }
    incoming = completed;
  }
  const root = await treeRoot(cachingReader(reader, known), newSize);
  return { tiles, size: newSize, root };
}
