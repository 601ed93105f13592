import type { TileRef } from '../../../shared/domain/tlog/tiles.js';
import type { TileReader } from '../../../shared/domain/tlog/tree.js';

/**
 * A tile store for the tests, behaving as the contract asks of the service's store: it keeps the widest version of
 * each tile, answers a read with exactly `width * 32` bytes (truncating), and refuses a write that would change a
 * stored tile rather than extend it. It counts calls and tiles read.
 */
export class MemoryTiles implements TileReader {
  readonly tiles = new Map<string, Uint8Array>();
  calls = 0;
  tilesRead = 0;

  async readTiles(refs: readonly TileRef[]): Promise<Uint8Array[]> {
    this.calls += 1;
    this.tilesRead += refs.length;
    return refs.map((ref) => {
      const data = this.tiles.get(`${ref.level}/${ref.index}`);
      if (!data || data.length < ref.width * 32)
        throw new Error(`tile ${ref.level}/${ref.index}.p/${ref.width} absent`);
      return data.slice(0, ref.width * 32);
    });
  }

  write(tiles: readonly { ref: TileRef; data: Uint8Array }[]): void {
    for (const { ref, data } of tiles) {
      const key = `${ref.level}/${ref.index}`;
      const old = this.tiles.get(key);
      if (data.length !== ref.width * 32)
        throw new Error(`tile ${key}: ${data.length} bytes for width ${ref.width}`);
      if (old && (old.length > data.length || Buffer.compare(old, data.subarray(0, old.length)) !== 0)) {
        throw new Error(`tile ${key} would change, not extend`);
      }
      this.tiles.set(key, data);
    }
  }

  resetCounts(): void {
    this.calls = 0;
    this.tilesRead = 0;
  }
}
