import { parseTilePath, tileWidthAt, TILE_WIDTH } from '../domain/tlog/tiles.js';
import { formatEntryBundle } from '../domain/tlog/entry-bundle.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { Deps } from '../runtime/deps.js';
import { queryRowRange } from '../store/ledger-store.js';
import { readLogTiles } from '../store/log-store.js';
import { latestCheckpoint } from './log-served-checkpoint.js';

/*
 * The log's tiles as C2SP tlog-tiles serves them (issue 31), so that a stock tlog-tiles client pointed at
 * `<base>/v1/ledger/log/` mirrors and verifies the log: hash tiles `tile/<L>/<N>[.p/<W>]` (W × 32 bytes, the
 * hashes of tree level 8·L) and entry bundles `tile/entries/<N>[.p/<W>]` (the leaf data of leaves 256·N ..
 * 256·N + W − 1: each record's 32-byte chainHash, length-prefixed as tlog-tiles frames entries). Only tiles within
 * the latest checkpoint's tree are served: a tile beyond it is 404, even when the store already holds it (the
 * integrator writes tiles before it signs), so what a client mirrors is always covered by a signed checkpoint.
 */

/**
 * The bytes of the tile at `path`, below `tile/` (what the greedy route parameter holds: `0/x001/234`,
 * `1/005.p/7`, `entries/000`); 400 malformed, 404 beyond the latest checkpoint or when there is none.
 */
export async function logTile(deps: Deps, firmId: string, path: string): Promise<Uint8Array> {
  const parsed = parseTilePath(`tile/${path}`);
  if (!parsed)
    throw new ValidationError('Not a tlog-tiles path', [
      {
        path: 'params.path',
        message:
          'Expected <L>/<N>[.p/<W>] or entries/<N>[.p/<W>]: N in 3-digit groups with x prefixes (x001/234), W in 1..255',
      },
    ]);
  const { size } = await latestCheckpoint(deps, firmId);
  if (parsed.kind === 'hash') {
    const { level, index, width } = parsed.ref;
    if (width > tileWidthAt(size, level, index)) throw beyond(path, size);
    const [bytes] = await readLogTiles(deps, firmId, [parsed.ref]);
    return bytes!;
  }
  const { index, width } = parsed;
  if (width > tileWidthAt(size, 0, index)) throw beyond(path, size);
  return entryBundle(deps, firmId, index, width);
}

function beyond(path: string, size: number): NotFoundError {
  return new NotFoundError(`Tile ${path} is not within the latest checkpoint (tree size ${size})`);
}

/**
 * Leaves 256·index .. 256·index + width − 1 (records of sequence numbers one higher): their chainHashes, from
 * one bounded query of at most 256 record rows. A row the tree covers is always there; its absence is a fault.
 */
async function entryBundle(deps: Deps, firmId: string, index: number, width: number): Promise<Uint8Array> {
  const first = index * TILE_WIDTH + 1;
  const rows = await queryRowRange(deps, firmId, first, first + width - 1);
  const entries = rows.map(({ position, record }, i) => {
    if (position !== first + i)
      throw new Error(`Log leaf ${first + i - 1} of firm ${firmId} has no record row`);
    return Buffer.from(record.chainHash, 'hex');
  });
  if (entries.length !== width || entries.some((e) => e.length !== 32))
    throw new Error(
      `Entry bundle ${index} of firm ${firmId}: a record row is missing or its chainHash malformed`,
    );
  return formatEntryBundle(entries);
}
