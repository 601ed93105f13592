import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256 } from '@noble/hashes/sha2.js';
import { leafHash } from '../../shared/domain/tlog/hash.js';
import { appendLeaves, treeRoot } from '../../shared/domain/tlog/tree.js';
import { newId } from '../../shared/ids.js';
import { keys } from '../../shared/store/keys.js';
import {
  advanceLogTree,
  logTileReader,
  LogTileMissingError,
  putCheckpoint,
  putCosignature,
  putLogTiles,
  readCheckpointAt,
  readCosignatures,
  readLatestCheckpoint,
  readLatestCosigned,
  readLogTiles,
  readLogTree,
} from '../../shared/store/log-store.js';
import { integrateStep } from '../../shared/services/log-integrator.js';
import { stackDeps } from './helpers.js';

/**
 * The verifiable log's storage and integrator against DynamoDB Local (issue 31): tiles only ever widen, LOGTREE
 * and checkpoints advance by one conditional write each, the integrator stops at a gap and never covers a row
 * beyond the head, resumes after a crash, and builds the same tree in bounded steps as in one.
 */

const deps = stackDeps();

function chainHash(firmId: string, n: number): string {
  return createHash('sha256').update(`${firmId}:${n}`).digest('hex');
}

/** Record rows (only what the log reads) and the head, straight into the ledger table. */
async function seedRows(firmId: string, positions: readonly number[], head: number): Promise<void> {
  for (const n of positions)
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.ledger,
        Item: { ...keys.ledgerRecord(firmId, n), sequenceNumber: n, chainHash: chainHash(firmId, n) },
      }),
    );
  await deps.db.send(
    new PutCommand({
      TableName: deps.tables.ledger,
      Item: {
        ...keys.ledgerHead(firmId),
        sequenceNumber: head,
        chainHash: chainHash(firmId, head),
        timestamp: new Date().toISOString(),
      },
    }),
  );
}

function naiveRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return sha256(Uint8Array.from([0, ...leaves[0]!]));
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Uint8Array.from([1, ...naiveRoot(leaves.slice(0, k)), ...naiveRoot(leaves.slice(k))]));
}

const rootOf = (firmId: string, size: number) =>
  Buffer.from(
    naiveRoot(
      Array.from({ length: size }, (_, i) => Uint8Array.from(Buffer.from(chainHash(firmId, i + 1), 'hex'))),
    ),
  ).toString('hex');
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array(0)).toString('hex');
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('log store', () => {
  it('keeps the widest version of a tile and truncates reads; a missing or narrower tile is a typed error', async () => {
    const firmId = newId('firm');
    const wide = new Uint8Array(3 * 32).fill(3);
    await putLogTiles(deps, firmId, [{ ref: { level: 0, index: 0, width: 3 }, data: wide }]);
    // A narrower version never replaces it.
    await putLogTiles(deps, firmId, [
      { ref: { level: 0, index: 0, width: 2 }, data: new Uint8Array(64).fill(9) },
    ]);
    const [two] = await readLogTiles(deps, firmId, [{ level: 0, index: 0, width: 2 }]);
    expect(two).toEqual(new Uint8Array(64).fill(3));
    await expect(readLogTiles(deps, firmId, [{ level: 0, index: 0, width: 4 }])).rejects.toBeInstanceOf(
      LogTileMissingError,
    );
    await expect(readLogTiles(deps, firmId, [{ level: 1, index: 0, width: 1 }])).rejects.toBeInstanceOf(
      LogTileMissingError,
    );
  });

  it('advances LOGTREE only from the size it was at', async () => {
    const firmId = newId('firm');
    const root = new Uint8Array(32).fill(1);
    expect(await advanceLogTree(deps, firmId, 0, { size: 5, root })).toBe(true);
    expect(await advanceLogTree(deps, firmId, 0, { size: 6, root })).toBe(false);
    expect(await advanceLogTree(deps, firmId, 5, { size: 7, root })).toBe(true);
    expect((await readLogTree(deps, firmId))?.size).toBe(7);
  });

  it('lets one conditional write decide a checkpoint: one per size, and the latest never goes down', async () => {
    const firmId = newId('firm');
    const cp = (size: number, note: string) => ({
      size,
      root: new Uint8Array(32).fill(size),
      note,
      signedAt: new Date().toISOString(),
    });
    const racing = await Promise.all([
      putCheckpoint(deps, firmId, cp(4, 'a')),
      putCheckpoint(deps, firmId, cp(4, 'b')),
    ]);
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await putCheckpoint(deps, firmId, cp(9, 'c'))).toBe(true);
    expect(await putCheckpoint(deps, firmId, cp(6, 'd'))).toBe(false);
    expect((await readLatestCheckpoint(deps, firmId))?.note).toBe('c');
    expect(await readCheckpointAt(deps, firmId, 6)).toBeUndefined();
    expect(['a', 'b']).toContain((await readCheckpointAt(deps, firmId, 4))?.note);
  });

  it('keeps the first cosignature per size and witness', async () => {
    const firmId = newId('firm');
    const cosig = (line: string) => ({
      size: 4,
      witnessKeyId: '0a1b2c3d',
      line,
      witnessName: 'witness.example',
      cosignedAt: new Date().toISOString(),
    });
    await putCosignature(deps, firmId, cosig('— witness.example AAA='));
    await putCosignature(deps, firmId, cosig('— witness.example BBB='));
    expect((await readCosignatures(deps, firmId, 4)).map((c) => c.line)).toEqual(['— witness.example AAA=']);
    expect(await readCosignatures(deps, firmId, 5)).toEqual([]);
  });

  it("serves the latest checkpoint with its own size's cosignatures in one read, and a checkpoint from before by size", async () => {
    const firmId = newId('firm');
    const cp = (size: number) => ({
      size,
      root: new Uint8Array(32),
      note: `n${size}`,
      signedAt: '2026-11-28T00:00:00Z',
    });
    const cosig = (size: number, witnessKeyId: string, line: string) => ({
      size,
      witnessKeyId,
      line,
      witnessName: 'witness.example',
      cosignedAt: new Date().toISOString(),
    });
    expect(await readLatestCosigned(deps, firmId)).toBeUndefined();
    await putCheckpoint(deps, firmId, cp(4));
    expect(await readLatestCosigned(deps, firmId)).toMatchObject({
      checkpoint: { size: 4 },
      cosignatures: [],
    });
    await putCosignature(deps, firmId, cosig(4, '0a0a0a0a', '— w1 A4='));
    await putCosignature(deps, firmId, cosig(4, '0b0b0b0b', '— w2 B4='));
    await putCheckpoint(deps, firmId, cp(7));
    // Witness 1 cosigns 7; witness 2 has not yet: its cosignature of 4 is not the latest checkpoint's.
    await putCosignature(deps, firmId, cosig(7, '0a0a0a0a', '— w1 A7='));
    // A late answer for an older size replaces nothing beside the checkpoint, yet is kept by size.
    await putCosignature(deps, firmId, cosig(4, '0a0a0a0a', '— w1 A4 again='));
    const latest = await readLatestCosigned(deps, firmId);
    expect(latest?.checkpoint.note).toBe('n7');
    expect(latest?.cosignatures?.map((c) => c.line)).toEqual(['— w1 A7=']);
    expect((await readCosignatures(deps, firmId, 4)).map((c) => c.line)).toEqual(['— w1 A4=', '— w2 B4=']);
    // A checkpoint stored before cosignatures were kept beside it says so: its cosignatures are read by size.
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.ledger,
        Item: { ...keys.latestCheckpoint(firmId), ...cp(9) },
      }),
    );
    expect(await readLatestCosigned(deps, firmId)).toMatchObject({
      checkpoint: { size: 9 },
      cosignatures: undefined,
    });
  });
});

describe('log integrator', () => {
  it('integrates up to the head, never past it, and builds the naive RFC 6962 root across tile boundaries', async () => {
    const firmId = newId('firm');
    await seedRows(firmId, range(1, 300), 290); // rows 291..300 are not committed (beyond the head)
    const step = await integrateStep(deps, firmId);
    expect(step).toMatchObject({ size: 290, head: 290, added: 290 });
    expect(hex(step.root)).toBe(rootOf(firmId, 290));
    expect(hex(await treeRoot(logTileReader(deps, firmId), 290))).toBe(rootOf(firmId, 290));
  });

  it('stops at a missing row, never skipping it, and goes on once it is there', async () => {
    const firmId = newId('firm');
    await seedRows(firmId, [...range(1, 9), ...range(11, 20)], 20);
    const stopped = await integrateStep(deps, firmId);
    expect(stopped).toMatchObject({ size: 9, added: 9, gapAt: 10 });
    await seedRows(firmId, [10], 20);
    const resumed = await integrateStep(deps, firmId);
    expect(resumed).toMatchObject({ size: 20, added: 11 });
    expect(hex(resumed.root)).toBe(rootOf(firmId, 20));
  });

  it('builds the same tree in bounded steps as in one, and repairs a crash between the tiles and LOGTREE', async () => {
    const firmId = newId('firm');
    await seedRows(firmId, range(1, 700), 700);
    const sizes: number[] = [];
    for (;;) {
      const step = await integrateStep(deps, firmId, 256);
      if (step.added === 0) break;
      sizes.push(step.size);
    }
    expect(sizes).toEqual([256, 512, 700]);
    expect(hex((await readLogTree(deps, firmId))?.root)).toBe(rootOf(firmId, 700));

    // A crash after the tiles of 701..710 were written, before LOGTREE moved: the next step redoes it identically.
    await seedRows(firmId, range(701, 710), 710);
    const leaves = range(701, 710).map((n) =>
      leafHash(Uint8Array.from(Buffer.from(chainHash(firmId, n), 'hex'))),
    );
    const crashed = await appendLeaves(logTileReader(deps, firmId), 700, leaves);
    await putLogTiles(deps, firmId, crashed.tiles);
    expect((await readLogTree(deps, firmId))?.size).toBe(700);
    const repaired = await integrateStep(deps, firmId);
    expect(repaired).toMatchObject({ size: 710, added: 10 });
    expect(hex(repaired.root)).toBe(rootOf(firmId, 710));

    // LOGTREE lost altogether: rebuilt from the start to the same root over the tiles already there.
    await deps.db.send(new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.logTree(firmId) }));
    const rebuilt = await integrateStep(deps, firmId);
    expect(rebuilt).toMatchObject({ size: 710, added: 710 });
    expect(hex(rebuilt.root)).toBe(rootOf(firmId, 710));
  });

  it('lets one of two racing integrators advance the tree; the other reports the lost race', async () => {
    const firmId = newId('firm');
    await seedRows(firmId, range(1, 50), 50);
    const [a, b] = await Promise.all([integrateStep(deps, firmId), integrateStep(deps, firmId)]);
    expect([a.lostRace ?? false, b.lostRace ?? false].filter(Boolean).length).toBeLessThanOrEqual(1);
    expect((await readLogTree(deps, firmId))?.size).toBe(50);
    expect(hex((await readLogTree(deps, firmId))?.root)).toBe(rootOf(firmId, 50));
  });
});
