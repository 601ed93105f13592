import {
  entriesPath,
  parseTilePath,
  tilePath,
  tilesForSize,
  TILE_HEIGHT,
  TILE_WIDTH,
  tileWidthAt,
} from '../../../shared/domain/tlog/tiles.js';

/** Tile paths as C2SP tlog-tiles spells them (its examples as facts), and the canonical-only parser. */

describe('tile paths', () => {
  it('encodes indices in 3-digit groups with x prefixes (C2SP: 1234067 → x001/x234/067)', () => {
    expect(TILE_HEIGHT).toBe(8);
    expect(TILE_WIDTH).toBe(256);
    expect(tilePath({ level: 0, index: 1_234_067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 0, index: 1234, width: 256 })).toBe('tile/0/x001/234');
    expect(tilePath({ level: 1, index: 5, width: 7 })).toBe('tile/1/005.p/7');
    expect(tilePath({ level: 2, index: 0, width: 255 })).toBe('tile/2/000.p/255');
    expect(tilePath({ level: 0, index: 1000, width: 256 })).toBe('tile/0/x001/000');
    expect(tilePath({ level: 0, index: 999, width: 256 })).toBe('tile/0/999');
    expect(tilePath({ level: 0, index: 2 ** 40, width: 1 })).toBe('tile/0/x001/x099/x511/x627/776.p/1');
    expect(entriesPath(1_234_067, 256)).toBe('tile/entries/x001/x234/067');
    expect(entriesPath(0, 13)).toBe('tile/entries/000.p/13');
  });

  it('refuses impossible tiles', () => {
    expect(() => tilePath({ level: 0, index: 0, width: 0 })).toThrow(RangeError);
    expect(() => tilePath({ level: 0, index: 0, width: 257 })).toThrow(RangeError);
    expect(() => tilePath({ level: 64, index: 0, width: 1 })).toThrow(RangeError);
    expect(() => tilePath({ level: 0, index: -1, width: 1 })).toThrow(RangeError);
    expect(() => entriesPath(1.5, 1)).toThrow(RangeError);
  });

  it('parses exactly the paths it writes', () => {
    for (const ref of [
      { level: 0, index: 0, width: 1 },
      { level: 0, index: 1_234_067, width: 256 },
      { level: 3, index: 999_999, width: 200 },
      { level: 63, index: 2 ** 45, width: 256 },
    ]) {
      expect(parseTilePath(tilePath(ref))).toEqual({ kind: 'hash', ref });
    }
    expect(parseTilePath('tile/entries/x001/234.p/9')).toEqual({ kind: 'entries', index: 1234, width: 9 });
    expect(parseTilePath('tile/entries/000')).toEqual({ kind: 'entries', index: 0, width: 256 });
  });

  it.each([
    'tile/0/1',
    'tile/0/0001',
    'tile/0/x000/001',
    'tile/0/001/234',
    'tile/0/x001',
    'tile/00/001',
    'tile/64/001',
    'tile/0/001.p/256',
    'tile/0/001.p/0',
    'tile/0/001.p/07',
    'tile/0/001.p/',
    'tile/-1/001',
    'tile/entries/1',
    '/tile/0/001',
    'tile/0/001/',
    'tile/data/001',
    'tile/0/x999/x999/x999/x999/x999/x999/999',
  ])('refuses %s', (path) => {
    expect(parseTilePath(path)).toBeUndefined();
  });
});

describe('tile widths', () => {
  it('gives each tile its width in a tree of a given size', () => {
    expect(tileWidthAt(300, 0, 0)).toBe(256);
    expect(tileWidthAt(300, 0, 1)).toBe(44);
    expect(tileWidthAt(300, 0, 2)).toBe(0);
    expect(tileWidthAt(300, 1, 0)).toBe(1);
    expect(tileWidthAt(255, 1, 0)).toBe(0);
    expect(tilesForSize(1)).toEqual([{ level: 0, index: 0, width: 1 }]);
    expect(tilesForSize(512)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 0, index: 1, width: 256 },
      { level: 1, index: 0, width: 2 },
    ]);
    expect(() => tilesForSize(-1)).toThrow(RangeError);
  });
});
