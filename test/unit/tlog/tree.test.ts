import { emptyRoot, leafHash, nodeHash, type Hash } from '../../../shared/domain/tlog/hash.js';
import { hashesAtLevel, tilesForSize, TILE_WIDTH, type TileRef } from '../../../shared/domain/tlog/tiles.js';
import {
  appendLeaves,
  consistencyProof,
  inclusionProof,
  TileDataError,
  treeRoot,
  TreeRequestError,
  type TileReader,
} from '../../../shared/domain/tlog/tree.js';
import { verifyConsistency, verifyInclusion } from '../../../shared/domain/tlog/verify.js';
import { MemoryTiles } from './memory-tiles.js';
import { hex, leafData, mth, naiveConsistency, naiveLeafHash, naivePath } from './naive-tree.js';

/**
 * The tile-based tree against RFC 6962 written out naively (naive-tree.ts): roots of every size 1..300, tiles
 * against their definition in C2SP tlog-tiles, proofs for many (index, size) and (m, n) pairs, the tile
 * boundaries at 256 and 65,536 with real trees, and trees of 2^40+ leaves with sparse (uniform-leaf) math.
 */

const leaves300 = Array.from({ length: 300 }, (_, i) => naiveLeafHash(leafData(i)));

async function build(
  leaves: readonly Hash[],
  chunks: readonly number[] = [leaves.length],
): Promise<MemoryTiles> {
  const store = new MemoryTiles();
  let size = 0;
  let c = 0;
  while (size < leaves.length) {
    const k = Math.min(chunks[c++ % chunks.length]!, leaves.length - size);
    const result = await appendLeaves(store, size, leaves.slice(size, size + k));
    store.write(result.tiles);
    size = result.size;
  }
  return store;
}

// Deterministic PRNG (mulberry32), so a failure reproduces.
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('RFC 6962 reference tree (transparency-dev/merkle testonly, as facts)', () => {
  // Leaf inputs and the roots of sizes 0..8 published with transparency-dev/merkle (testonly/constants.go).
  const inputs = [
    '',
    '00',
    '10',
    '2021',
    '3031',
    '40414243',
    '5051525354555657',
    '606162636465666768696a6b6c6d6e6f',
  ];
  const roots = [
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
    '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
    'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
    '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
  ];

  it('gives the published root for every size 0..8, appended one leaf at a time', async () => {
    const store = new MemoryTiles();
    expect(hex(await treeRoot(store, 0))).toBe(roots[0]);
    for (let i = 0; i < inputs.length; i += 1) {
      const result = await appendLeaves(store, i, [leafHash(Buffer.from(inputs[i]!, 'hex'))]);
      store.write(result.tiles);
      expect(hex(result.root)).toBe(roots[i + 1]);
      expect(hex(await treeRoot(store, i + 1))).toBe(roots[i + 1]);
    }
  });

  it('gives the published root of size 8 from one append of all eight', async () => {
    const result = await appendLeaves(
      new MemoryTiles(),
      0,
      inputs.map((x) => leafHash(Buffer.from(x, 'hex'))),
    );
    expect(hex(result.root)).toBe(roots[8]);
  });
});

describe('every tree size 1..300 against the naive MTH', () => {
  it('appending one leaf at a time: each root, and every earlier root read back from the tiles', async () => {
    const store = new MemoryTiles();
    for (let size = 1; size <= 300; size += 1) {
      const result = await appendLeaves(store, size - 1, [leaves300[size - 1]!]);
      store.write(result.tiles);
      const naive = hex(mth(leaves300.slice(0, size)));
      expect(result.size).toBe(size);
      expect(hex(result.root)).toBe(naive);
      expect(hex(await treeRoot(store, size))).toBe(naive);
    }
    for (let size = 0; size <= 300; size += 1) {
      expect(hex(await treeRoot(store, size))).toBe(hex(mth(leaves300.slice(0, size))));
    }
  });

  it('builds the same tiles whatever the batches, and each tile holds what C2SP tlog-tiles defines', async () => {
    const one = await build(leaves300, [1]);
    const random = prng(7);
    const chunks = Array.from({ length: 40 }, () => 1 + Math.floor(random() * 70));
    for (const store of [
      await build(leaves300),
      await build(leaves300, chunks),
      await build(leaves300, [255, 2]),
    ]) {
      expect([...store.tiles.keys()].sort()).toEqual([...one.tiles.keys()].sort());
      for (const [key, data] of store.tiles) expect(hex(data)).toBe(hex(one.tiles.get(key)!));
    }
    // tile 0/0 is the first 256 leaf hashes, 0/1 the next 44; tile 1/0 holds MTH(D[0:256]).
    expect(hex(one.tiles.get('0/0')!)).toBe(leaves300.slice(0, 256).map(hex).join(''));
    expect(hex(one.tiles.get('0/1')!)).toBe(leaves300.slice(256).map(hex).join(''));
    expect(hex(one.tiles.get('1/0')!)).toBe(hex(mth(leaves300.slice(0, 256))));
    expect(one.tiles.size).toBe(3);
  });

  it('returns exactly the tiles that changed or appeared, at their new widths', async () => {
    const store = await build(leaves300.slice(0, 250));
    const result = await appendLeaves(store, 250, leaves300.slice(250, 260));
    expect(result.tiles.map((t) => t.ref)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 0, index: 1, width: 4 },
      { level: 1, index: 0, width: 1 },
    ]);
    expect(tilesForSize(260)).toEqual(result.tiles.map((t) => t.ref));
  });
});

describe('reads', () => {
  it('an append reads, in one call, only the old right-edge partial tile of each level', async () => {
    const store = await build(leaves300.slice(0, 257));
    store.resetCounts();
    await appendLeaves(store, 257, leaves300.slice(257, 260));
    expect(store.calls).toBe(1);
    expect(store.tilesRead).toBe(2); // 0/1.p/1 and 1/0.p/1
    store.resetCounts();
    await appendLeaves(store, 256, leaves300.slice(256, 257)); // a fresh level-0 tile: only 1/0.p/1 to read
    expect(store.tilesRead).toBe(1);
  });

  it('a root or a proof reads its tiles in one call, at most two per level', async () => {
    const store = await build(leaves300);
    for (const call of [
      () => treeRoot(store, 299),
      () => inclusionProof(store, 17, 300),
      () => inclusionProof(store, 299, 300),
      () => consistencyProof(store, 3, 300),
      () => consistencyProof(store, 257, 299),
    ]) {
      store.resetCounts();
      await call();
      expect(store.calls).toBe(1);
      expect(store.tilesRead).toBeLessThanOrEqual(4);
    }
  });
});

describe('proofs against the naive computation and the verifier', () => {
  const random = prng(42);
  const inclusionPairs: [number, number][] = [];
  for (let size = 1; size <= 40; size += 1) for (let i = 0; i < size; i += 1) inclusionPairs.push([i, size]);
  for (let size = 41; size <= 300; size += 1) {
    for (const i of [
      0,
      size - 1,
      Math.floor(size / 2),
      Math.floor(random() * size),
      Math.floor(random() * size),
    ]) {
      inclusionPairs.push([i, size]);
    }
  }
  const consistencyPairs: [number, number][] = [];
  for (let n = 1; n <= 32; n += 1) for (let m = 0; m <= n; m += 1) consistencyPairs.push([m, n]);
  for (let n = 41; n <= 300; n += 1) {
    for (const m of [1, n - 1, n, Math.floor(n / 2), 1 + Math.floor(random() * n)])
      consistencyPairs.push([m, n]);
  }
  for (const m of [127, 128, 129, 255, 256, 257])
    for (const n of [256, 257, 258, 299, 300]) {
      if (m <= n) consistencyPairs.push([m, n]);
    }

  it(`inclusion: ${inclusionPairs.length} (index, size) pairs`, async () => {
    const store = await build(leaves300, [37]);
    for (const [index, size] of inclusionPairs) {
      const leaves = leaves300.slice(0, size);
      const proof = await inclusionProof(store, index, size);
      expect(proof.map(hex)).toEqual(naivePath(index, leaves).map(hex));
      const root = mth(leaves);
      expect(verifyInclusion(leaves300[index]!, index, size, proof, root)).toBe(true);
      // Neighbouring claims fail: another index, another size, another leaf, one flipped bit.
      if (size > 1)
        expect(verifyInclusion(leaves300[index]!, (index + 1) % size, size, proof, root)).toBe(false);
      if (size < 300)
        expect(
          verifyInclusion(leaves300[index]!, index, size, proof, mth(leaves300.slice(0, size + 1))),
        ).toBe(false);
      expect(verifyInclusion(naiveLeafHash(leafData(1000)), index, size, proof, root)).toBe(false);
      if (proof.length > 0) {
        const bad = proof.map((h) => Uint8Array.from(h));
        bad[proof.length - 1]![0]! ^= 1;
        expect(verifyInclusion(leaves300[index]!, index, size, bad, root)).toBe(false);
      }
    }
  });

  it(`consistency: ${consistencyPairs.length} (m, n) pairs`, async () => {
    const store = await build(leaves300, [100, 1]);
    for (const [m, n] of consistencyPairs) {
      const proof = await consistencyProof(store, m, n);
      expect(proof.map(hex)).toEqual(naiveConsistency(m, leaves300.slice(0, n)).map(hex));
      const oldRoot = mth(leaves300.slice(0, m));
      const newRoot = mth(leaves300.slice(0, n));
      expect(verifyConsistency(m, n, proof, oldRoot, newRoot)).toBe(true);
      if (m > 0 && m < n) {
        // Another history: the old tree with its last leaf replaced is not a prefix.
        const forged = mth([...leaves300.slice(0, m - 1), naiveLeafHash(leafData(5000))]);
        expect(verifyConsistency(m, n, proof, forged, newRoot)).toBe(false);
        expect(verifyConsistency(m, n, proof, oldRoot, mth(leaves300.slice(0, n - 1)))).toBe(false);
        for (const k of new Set([0, proof.length - 1])) {
          const bad = proof.map((h) => Uint8Array.from(h));
          bad[k]![31]! ^= 0x80;
          expect(verifyConsistency(m, n, bad, oldRoot, newRoot)).toBe(false);
        }
        expect(verifyConsistency(m, n, proof.slice(0, -1), oldRoot, newRoot)).toBe(false);
      }
    }
  });

  it('refuses requests outside the tree', async () => {
    const store = await build(leaves300.slice(0, 10));
    await expect(inclusionProof(store, 10, 10)).rejects.toThrow(TreeRequestError);
    await expect(inclusionProof(store, -1, 10)).rejects.toThrow(TreeRequestError);
    await expect(consistencyProof(store, 11, 10)).rejects.toThrow(TreeRequestError);
    await expect(treeRoot(store, 1.5)).rejects.toThrow(TreeRequestError);
    await expect(appendLeaves(store, 10, [new Uint8Array(31)])).rejects.toThrow(TreeRequestError);
    expect(await consistencyProof(store, 0, 10)).toEqual([]);
    expect(await consistencyProof(store, 10, 10)).toEqual([]);
  });

  it('refuses a reader that breaks its contract', async () => {
    const short: TileReader = { readTiles: async (refs) => refs.map(() => new Uint8Array(32)) };
    await expect(treeRoot(short, 5)).rejects.toThrow(TileDataError);
    const missing: TileReader = { readTiles: async () => [] };
    await expect(inclusionProof(missing, 0, 5)).rejects.toThrow(TileDataError);
  });
});

describe('the tile boundary at 65,536 leaves (a real tree)', () => {
  const n = 65_536 + 3;
  const leaves = Array.from({ length: n }, (_, i) => naiveLeafHash(leafData(i)));
  let store: MemoryTiles;
  beforeAll(async () => {
    store = await build(leaves, [20_000, 25_535, 1]);
  });

  it('has the tiles C2SP tlog-tiles says: 256 full level-0 tiles and one full level-1 tile at 65,536', () => {
    const at = tilesForSize(65_536);
    expect(at.filter((t) => t.level === 0)).toHaveLength(256);
    expect(at.filter((t) => t.level === 1)).toEqual([{ level: 1, index: 0, width: 256 }]);
    expect(at.filter((t) => t.level === 2)).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(hex(store.tiles.get('2/0')!)).toBe(hex(mth(leaves.slice(0, 65_536))));
  });

  it('roots and proofs across the boundary agree with the naive tree', async () => {
    for (const size of [65_535, 65_536, 65_537, n]) {
      const root = mth(leaves.slice(0, size));
      expect(hex(await treeRoot(store, size))).toBe(hex(root));
      for (const index of [0, 255, 256, 65_535, size - 1]) {
        if (index >= size) continue;
        const proof = await inclusionProof(store, index, size);
        expect(verifyInclusion(leaves[index]!, index, size, proof, root)).toBe(true);
      }
    }
    const proof = await inclusionProof(store, 40_000, n);
    expect(proof.map(hex)).toEqual(naivePath(40_000, leaves).map(hex));
    for (const [m, size] of [
      [65_535, 65_536],
      [65_536, 65_537],
      [256, n],
      [65_000, n],
    ] as const) {
      const c = await consistencyProof(store, m, size);
      expect(c.map(hex)).toEqual(naiveConsistency(m, leaves.slice(0, size)).map(hex));
      expect(verifyConsistency(m, size, c, mth(leaves.slice(0, m)), mth(leaves.slice(0, size)))).toBe(true);
    }
  });
});

describe('huge trees with sparse math (every leaf the same hash)', () => {
  // With identical leaves every complete subtree of 2^h leaves has the same hash U[h], so a tile of level L is
  // `width` copies of U[8L]: the reader below serves any tile of a tree of 2^40+ leaves without storing it, and
  // a naive recursion memoised on the size is the independent yardstick.
  const U: Hash[] = [leafHash(new Uint8Array(32))];
  for (let h = 1; h < 64; h += 1) U.push(nodeHash(U[h - 1]!, U[h - 1]!));
  const memo = new Map<number, Hash>();
  const uniformRoot = (size: number): Hash => {
    if (size === 0) return emptyRoot();
    const cached = memo.get(size);
    if (cached) return cached;
    let k = 1;
    let h = 0;
    while (k * 2 < size) {
      k *= 2;
      h += 1;
    }
    const root =
      size === 1 ? U[0]! : nodeHash(k * 2 === size ? U[h]! : uniformRoot(k), uniformRoot(size - k));
    memo.set(size, root);
    return root;
  };

  const sparseReader = (size: number) => {
    const reads: TileRef[][] = [];
    const reader: TileReader = {
      async readTiles(refs) {
        reads.push([...refs]);
        return refs.map((ref) => {
          const count = hashesAtLevel(size, ref.level) - ref.index * TILE_WIDTH;
          if (ref.width > Math.min(TILE_WIDTH, count))
            throw new Error(`tile ${ref.level}/${ref.index} is not in the tree`);
          const data = new Uint8Array(ref.width * 32);
          for (let i = 0; i < ref.width; i += 1) data.set(U[8 * ref.level]!, i * 32);
          return data;
        });
      },
    };
    return { reader, reads };
  };

  for (const size of [2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2 ** 32 + 65_537, 2 ** 52 - 1, 65_536, 16_777_217]) {
    it(`size ${size}: root, inclusion and consistency proofs, a few tiles per level`, async () => {
      const { reader, reads } = sparseReader(size);
      const root = await treeRoot(reader, size);
      expect(hex(root)).toBe(hex(uniformRoot(size)));
      for (const index of [0, size - 1, Math.floor(size / 3)]) {
        reads.length = 0;
        const proof = await inclusionProof(reader, index, size);
        expect(reads).toHaveLength(1);
        const levels = Math.ceil(Math.log2(size) / 8) + 1;
        expect(reads[0]!.length).toBeLessThanOrEqual(2 * levels);
        expect(verifyInclusion(U[0]!, index, size, proof, root)).toBe(true);
        expect(verifyInclusion(U[0]!, index, size, proof, uniformRoot(size - 1))).toBe(false);
      }
      for (const m of [1, 255, 256, 65_536, size - 1, Math.floor(size / 2) + 1]) {
        if (m < 1 || m > size) continue;
        const proof = await consistencyProof(reader, m, size);
        expect(verifyConsistency(m, size, proof, uniformRoot(m), root)).toBe(true);
      }
    });
  }

  it('lists the tiles of 70,000 leaves as C2SP tlog-tiles does', () => {
    const tiles = tilesForSize(70_000);
    expect(tiles.filter((t) => t.level === 0 && t.width === 256)).toHaveLength(273);
    expect(tiles.filter((t) => t.level === 0 && t.width < 256)).toEqual([
      { level: 0, index: 273, width: 112 },
    ]);
    expect(tiles.filter((t) => t.level === 1)).toEqual([
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 1, width: 17 },
    ]);
    expect(tiles.filter((t) => t.level === 2)).toEqual([{ level: 2, index: 0, width: 1 }]);
    expect(tiles).toHaveLength(277);
    expect(tilesForSize(256)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 1, index: 0, width: 1 },
    ]);
    expect(tilesForSize(0)).toEqual([]);
  });
});
