import type { TileReader } from './tree.js';
import type { TileRef } from './tiles.js';

/**
 * A TileReader that reads each tile once, for many proofs against one tree (an evidence bundle's inclusion
 * proofs: consecutive records share their tiles, so 300 records need a handful of tiles, not 300 × log n reads).
 * Tiles are immutable at a given width, so a cached one never goes stale; keep one cache per request.
 */
export function cachedTileReader(reader: TileReader): TileReader {
  const tiles = new Map<string, Promise<Uint8Array>>();
  const keyOf = (ref: TileRef) => `${ref.level}/${ref.index}/${ref.width}`;
  return {
    async readTiles(refs) {
      const missing = [
        ...new Map(refs.filter((ref) => !tiles.has(keyOf(ref))).map((ref) => [keyOf(ref), ref])).values(),
      ];
      if (missing.length > 0) {
        const read = reader.readTiles(missing);
        missing.forEach((ref, i) =>
          tiles.set(
            keyOf(ref),
            read.then((data) => data[i]!),
          ),
        );
        // A failed read is not kept: the next proof asks again.
        read.catch(() => missing.forEach((ref) => tiles.delete(keyOf(ref))));
      }
      return Promise.all(refs.map((ref) => tiles.get(keyOf(ref))!));
    },
  };
}
