/**
 * The C2SP tlog-tiles layout: a tile at level L holds up to 256 consecutive hashes of tree level 8·L (level 0:
 * leaf hashes); the right-edge tiles of a tree are partial (`.p/<W>`); an index is written in 3-digit groups,
 * all but the last prefixed with `x` (1234067 → x001/x234/067).
 */

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
/** tlog-tiles allows levels 0..63; a tree of at most 2^53 leaves needs far fewer. */
export const MAX_TILE_LEVEL = 63;

/** One hash tile: `width` 1..256 (256 = full). */
export interface TileRef {
  level: number;
  index: number;
  width: number;
}

export type ParsedTilePath =
  { kind: 'hash'; ref: TileRef } | { kind: 'entries'; index: number; width: number };

/** 256^level, the number of leaves under one hash of a level-`level` tile. */
export function leavesPerTileEntry(level: number): number {
  return TILE_WIDTH ** level;
}

function formatIndex(index: number): string {
  let n = index;
  let out = String(n % 1000).padStart(3, '0');
  while (n >= 1000) {
    n = Math.floor(n / 1000);
    out = `x${String(n % 1000).padStart(3, '0')}/${out}`;
  }
  return out;
}

function widthSuffix(width: number): string {
  return width === TILE_WIDTH ? '' : `.p/${width}`;
}

function checkTile(index: number, width: number): void {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index} is not valid`);
  if (!Number.isInteger(width) || width < 1 || width > TILE_WIDTH) {
    throw new RangeError(`tile width ${width} is not in 1..${TILE_WIDTH}`);
  }
}

/** 'tile/0/x001/234', 'tile/1/005.p/7'. */
export function tilePath(ref: TileRef): string {
  checkTile(ref.index, ref.width);
  if (!Number.isInteger(ref.level) || ref.level < 0 || ref.level > MAX_TILE_LEVEL) {
    throw new RangeError(`tile level ${ref.level} is not in 0..${MAX_TILE_LEVEL}`);
  }
  return `tile/${ref.level}/${formatIndex(ref.index)}${widthSuffix(ref.width)}`;
}

/** 'tile/entries/x001/234', 'tile/entries/005.p/7': the entry bundle beside level-0 tile `index`. */
export function entriesPath(index: number, width: number): string {
  checkTile(index, width);
  return `tile/entries/${formatIndex(index)}${widthSuffix(width)}`;
}

/**
 * The tile or entry bundle a path names, or undefined if it is not exactly such a path in its one canonical
 * spelling (no leading zero groups, no `.p/256`, no `.p/0`).
 */
export function parseTilePath(path: string): ParsedTilePath | undefined {
  const match = /^tile\/(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(
    path,
  );
  if (!match) return undefined;
  const [, levelText = '', indexText = '', widthText] = match;
  const index = Number(indexText.replaceAll('x', '').replaceAll('/', ''));
  const width = widthText === undefined ? TILE_WIDTH : Number(widthText);
  if (!Number.isSafeInteger(index) || (widthText !== undefined && width >= TILE_WIDTH)) return undefined;
  if (levelText === 'entries') {
    return entriesPath(index, width) === path ? { kind: 'entries', index, width } : undefined;
  }
  const level = Number(levelText);
  if (level > MAX_TILE_LEVEL) return undefined;
  const ref = { level, index, width };
  return tilePath(ref) === path ? { kind: 'hash', ref } : undefined;
}

/** The number of hashes level `level`'s tiles hold in a tree of `size` leaves: floor(size / 256^level). */
export function hashesAtLevel(size: number, level: number): number {
  return Math.floor(size / leavesPerTileEntry(level));
}

/** The width tile (level, index) has in a tree of `size` leaves (0: it does not exist yet). */
export function tileWidthAt(size: number, level: number, index: number): number {
  const count = hashesAtLevel(size, level) - index * TILE_WIDTH;
  return Math.max(0, Math.min(TILE_WIDTH, count));
}

/**
 * Every tile of a tree of `size` leaves, level by level from 0: the full ones and, where a level's count is not a
 * multiple of 256, its right-edge partial tile. (Size 256: tile 0/000 and the partial 1/000.p/1.)
 */
export function tilesForSize(size: number): TileRef[] {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`tree size ${size} is not valid`);
  const tiles: TileRef[] = [];
  for (let level = 0; level <= MAX_TILE_LEVEL; level += 1) {
    const count = hashesAtLevel(size, level);
    if (count === 0) break;
    const full = Math.floor(count / TILE_WIDTH);
    for (let index = 0; index < full; index += 1) tiles.push({ level, index, width: TILE_WIDTH });
    if (count % TILE_WIDTH !== 0) tiles.push({ level, index: full, width: count % TILE_WIDTH });
  }
  return tiles;
}
