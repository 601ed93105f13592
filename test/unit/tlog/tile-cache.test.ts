import { leafHash } from '../../../shared/domain/tlog/hash.js';
import { cachedTileReader } from '../../../shared/domain/tlog/tile-cache.js';
import { appendLeaves, inclusionProof, type TileReader } from '../../../shared/domain/tlog/tree.js';
import { MemoryTiles } from './memory-tiles.js';
import { leafData } from './naive-tree.js';

const SIZE = 70_000; // three tile levels

let store: MemoryTiles;
beforeAll(async () => {
  store = new MemoryTiles();
  const result = await appendLeaves(
    store,
    0,
    Array.from({ length: SIZE }, (_, i) => leafHash(leafData(i))),
  );
  store.write(result.tiles);
});

describe('cachedTileReader (one tree, many proofs: an evidence bundle)', () => {
  it('gives the same proofs as the store and reads each tile once, however many proofs ask at once', async () => {
    const indexes = Array.from({ length: 300 }, (_, i) => 60_000 + i);
    const direct = await Promise.all(indexes.map((i) => inclusionProof(store, i, SIZE)));
    store.resetCounts();
    const cached = cachedTileReader(store);
    const proofs = await Promise.all(indexes.map((i) => inclusionProof(cached, i, SIZE)));
    expect(proofs).toEqual(direct);
    // 300 consecutive leaves span two level-0 tiles, one tile of each level above, and the tree's right edge.
    expect(store.tilesRead).toBeLessThan(10);
    const before = store.tilesRead;
    await inclusionProof(cached, 60_100, SIZE);
    expect(store.tilesRead).toBe(before);
  });

  it('does not keep a failed read: the next proof reads again', async () => {
    let fail = true;
    const flaky: TileReader = {
      readTiles: (refs) => (fail ? Promise.reject(new Error('throttled')) : store.readTiles(refs)),
    };
    const cached = cachedTileReader(flaky);
    await expect(inclusionProof(cached, 5, SIZE)).rejects.toThrow('throttled');
    fail = false;
    expect(await inclusionProof(cached, 5, SIZE)).toEqual(await inclusionProof(store, 5, SIZE));
  });
});
