import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parseCheckpoint, type Checkpoint } from '../../shared/domain/tlog/checkpoint.js';
import { parseHashLines } from '../../shared/domain/tlog/consistency-format.js';
import { parseEntryBundle } from '../../shared/domain/tlog/entry-bundle.js';
import { cosignatureMessage, cosignatureSignature } from '../../shared/domain/tlog/cosignature.js';
import {
  cosignatureKeyId,
  formatSignatureLines,
  formatVkey,
  parseVkey,
  verifierFromVkey,
  verifyNote,
  type NoteVerifier,
} from '../../shared/domain/tlog/note.js';
import { parseTlogProof } from '../../shared/domain/tlog/proof-format.js';
import { entriesPath, tilePath, tilesForSize, TILE_WIDTH } from '../../shared/domain/tlog/tiles.js';
import { verifyConsistency, verifyInclusion } from '../../shared/domain/tlog/verify.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { keys } from '../../shared/store/keys.js';
import { putCosignature } from '../../shared/store/log-store.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, incidentBody, onboardFirm, type StackResponse } from '../support/stack-client.js';

/*
 * The verifiable log's HTTP interface (issue 31) on a stack run like Lambda (4 instances): records appended
 * concurrently in waves, a checkpoint after each wave; then every answer is checked with the tlog core's
 * verifiers against an independent, naive RFC 6962 computation from the records themselves.
 */

const INTERVAL_MS = 300;

// --- An independent RFC 6962 Merkle tree over the records' chainHashes (node:crypto, recursive, naive). ---
const sha256 = (...parts: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
};
const leafOf = (record: LedgerRecord) => sha256(Uint8Array.of(0), Buffer.from(record.chainHash, 'hex'));
function mth(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Uint8Array.of(1), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}
/** The tile's W hashes: tree level 8·L, positions 256·N .. 256·N + W − 1, each the root of its 256^L leaves. */
function naiveTile(leaves: readonly Uint8Array[], ref: { level: number; index: number; width: number }) {
  const span = TILE_WIDTH ** ref.level;
  const hashes = Array.from({ length: ref.width }, (_, i) => {
    const start = (ref.index * TILE_WIDTH + i) * span;
    return mth(leaves.slice(start, start + span));
  });
  return Buffer.concat(hashes);
}

const text = (response: StackResponse) => new TextDecoder().decode(response.bytes);

describe('the verifiable log over HTTP', () => {
  let stack: RunningStack;
  let firm: { firmId: string; key: string };
  let other: { firmId: string; key: string };
  let records: LedgerRecord[];
  let leaves: Uint8Array[];
  let verifiers: NoteVerifier[];
  /** Every checkpoint seen after a wave, by size: the signed note as served. */
  const checkpoints = new Map<number, { note: string; checkpoint: Checkpoint }>();

  const get = (path: string, key = firm.key) => call(stack, 'GET', path, { key });

  async function checkpointCovering(size: number): Promise<string> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await get('/v1/ledger/log/checkpoint');
      if (response.status === 200 && parseCheckpoint(parseNote(text(response))).size >= size)
        return text(response);
      if (Date.now() > deadline) throw new Error(`No checkpoint of size ${size} within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  beforeAll(async () => {
    stack = await startStack({
      instances: 4,
      env: { CHECKPOINT_INTERVAL_MS: String(INTERVAL_MS), SIGNER_LATENCY_MS: '2' },
    });
    [firm, other] = await Promise.all([onboardFirm(stack), onboardFirm(stack)]);
    // Waves of concurrent appends, 300 records in all (a full level-0 tile, a partial one, a level-1 tile).
    let total = (await chainOf(stack, firm.key)).length;
    for (const wave of [1, 2, 5, 12, 30, 50, 60, 60, 80]) {
      const answers = await Promise.all(
        Array.from({ length: wave }, (_, n) =>
          call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(total + n) }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(wave).fill(201));
      total += wave;
      const note = await checkpointCovering(total);
      const checkpoint = parseCheckpoint(parseNote(note));
      checkpoints.set(checkpoint.size, { note, checkpoint });
    }
    records = await chainOf(stack, firm.key);
    leaves = records.map(leafOf);
    const vkeys = await get('/v1/ledger/log/vkeys');
    verifiers = await Promise.all(text(vkeys).trimEnd().split('\n').map(verifierFromVkey));
    // The other firm has a log of its own.
    await call(stack, 'POST', '/v1/incidents', { key: other.key, body: incidentBody(1) });
  }, 600_000);

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('serves the vkeys of the firm origin: ECDSA P-256 (0x02) and Ed25519 (0x01)', async () => {
    const response = await get('/v1/ledger/log/vkeys');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const parsed = text(response).trimEnd().split('\n').map(parseVkey);
    const origin = `${new URL(stack.baseUrl).host}/ledger/${firm.firmId}`;
    expect(parsed.map((k) => [k.name, k.type]).sort()).toEqual([
      [origin, 0x01],
      [origin, 0x02],
    ]);
  });

  it('serves checkpoints that cover every record and verify with both log keys', async () => {
    expect(checkpoints.size).toBeGreaterThanOrEqual(5);
    for (const { note, checkpoint } of checkpoints.values()) {
      const { verified } = await verifyNote(note, verifiers);
      expect(verified).toHaveLength(2);
      expect(checkpoint.origin).toBe(`${new URL(stack.baseUrl).host}/ledger/${firm.firmId}`);
      expect(Buffer.from(checkpoint.root)).toEqual(Buffer.from(mth(leaves.slice(0, checkpoint.size))));
    }
    const latest = await get('/v1/ledger/log/checkpoint');
    expect(latest.headers.get('cache-control')).toBe('no-store');
    expect(parseCheckpoint(parseNote(text(latest))).size).toBe(records.length);
  });

  it('proves the first, the last and random records at many tree sizes', async () => {
    const sizes = [...checkpoints.keys()];
    const picks = [0, records.length - 1, ...Array.from({ length: 12 }, () => randomBelow(records.length))];
    let checked = 0;
    for (const index of picks) {
      const record = records[index]!;
      for (const size of sizes.filter((s) => s > index)) {
        const response = await get(`/v1/ledger/records/${record.id}/proof?treeSize=${size}`);
        expect(response.status).toBe(200);
        const proof = parseTlogProof(text(response));
        expect(proof.index).toBe(index);
        const { verified } = await verifyNote(proof.checkpoint, verifiers);
        expect(verified).toHaveLength(2);
        const checkpoint = parseCheckpoint(parseNote(proof.checkpoint));
        expect(checkpoint.size).toBe(size);
        expect(verifyInclusion(leafOf(record), index, size, proof.proof, checkpoint.root)).toBe(true);
        // Not for another leaf.
        if (size > 1)
          expect(
            verifyInclusion(leaves[(index + 1) % size]!, index, size, proof.proof, checkpoint.root),
          ).toBe(false);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(30);
    // Without treeSize: the latest checkpoint.
    const last = records[records.length - 1]!;
    const latest = parseTlogProof(text(await get(`/v1/ledger/records/${last.id}/proof`)));
    expect(parseCheckpoint(parseNote(latest.checkpoint)).size).toBe(records.length);
  });

  it('waits for the checkpoint of a record committed a moment ago, then proves it', async () => {
    const appended = await call(stack, 'POST', '/v1/incidents', { key: other.key, body: incidentBody(2) });
    expect(appended.status).toBe(201);
    const chain = await chainOf(stack, other.key);
    const newest = chain[chain.length - 1]!;
    const response = await get(`/v1/ledger/records/${newest.id}/proof`, other.key);
    expect(response.status).toBe(200);
    const proof = parseTlogProof(text(response));
    const checkpoint = parseCheckpoint(parseNote(proof.checkpoint));
    expect(checkpoint.size).toBeGreaterThanOrEqual(chain.length);
    const root = mth(chain.map(leafOf).slice(0, checkpoint.size));
    expect(
      verifyInclusion(leafOf(newest), newest.sequenceNumber - 1, checkpoint.size, proof.proof, root),
    ).toBe(true);
  });

  it('proves consistency between many pairs of sizes, checkpointed or not', async () => {
    const n = records.length;
    const sizes = [...new Set([1, 2, 3, 7, 8, 9, 255, 256, 257, n - 1, n, ...checkpoints.keys()])].filter(
      (s) => s >= 1 && s <= n,
    );
    let checked = 0;
    for (const from of sizes)
      for (const to of sizes.filter((s) => s >= from)) {
        const response = await get(`/v1/ledger/log/consistency?from=${from}&to=${to}`);
        expect(response.status).toBe(200);
        const proof = parseHashLines(text(response));
        if (from === to) expect(text(response)).toBe('');
        const ok = verifyConsistency(from, to, proof, mth(leaves.slice(0, from)), mth(leaves.slice(0, to)));
        expect([from, to, ok]).toEqual([from, to, true]);
        checked += 1;
      }
    expect(checked).toBeGreaterThan(50);
    // `to` defaults to the latest checkpoint.
    const fromFive = parseHashLines(text(await get('/v1/ledger/log/consistency?from=5')));
    expect(verifyConsistency(5, n, fromFive, mth(leaves.slice(0, 5)), mth(leaves))).toBe(true);
  });

  it('mirrors every tile and entry bundle as a tlog-tiles client would, equal to the records', async () => {
    const size = records.length;
    const refs = tilesForSize(size);
    expect(refs.map((r) => r.level)).toContain(1);
    for (const ref of refs) {
      const response = await get(`/v1/ledger/log/${tilePath(ref)}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(response.bytes)).toEqual(naiveTile(leaves, ref));
      if (ref.level !== 0) continue;
      const bundle = await get(`/v1/ledger/log/${entriesPath(ref.index, ref.width)}`);
      expect(bundle.status).toBe(200);
      const entries = parseEntryBundle(bundle.bytes).map((e) => Buffer.from(e).toString('hex'));
      const first = ref.index * TILE_WIDTH;
      expect(entries).toEqual(records.slice(first, first + ref.width).map((r) => r.chainHash));
    }
    // A partial tile of an older checkpoint's width is served too (it never changes), as a prefix.
    const narrow = await get('/v1/ledger/log/tile/0/000.p/10');
    expect(Buffer.from(narrow.bytes)).toEqual(naiveTile(leaves, { level: 0, index: 0, width: 10 }));
  });

  it('answers 404 beyond the latest checkpoint and 400 to a path that is not a tile', async () => {
    for (const path of ['tile/0/001.p/255', 'tile/0/005', 'tile/2/000', 'tile/entries/003', 'tile/1/000'])
      expect([path, (await get(`/v1/ledger/log/${path}`)).status]).toEqual([path, 404]);
    for (const path of [
      'tile/0/1',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/0/000.p/007',
      'tile/x/000',
      'tile/0/x000/001',
      'tile/entries',
      'tile/0/000/extra',
    ]) {
      const response = await get(`/v1/ledger/log/${path}`);
      expect([path, response.status, response.body.error.code]).toEqual([path, 400, 'VALIDATION_ERROR']);
    }
  });

  it('refuses bad proof and consistency requests with 400, and unknown sizes with 404', async () => {
    const record = records[9]!; // leaf 9
    const bad = async (path: string, status: number) => {
      const response = await get(path);
      expect([path, response.status]).toEqual([path, status]);
      expect(response.body.error.message).toEqual(expect.any(String));
    };
    await bad(`/v1/ledger/records/${record.id}/proof?treeSize=0`, 400);
    await bad(`/v1/ledger/records/${record.id}/proof?treeSize=abc`, 400);
    await bad(`/v1/ledger/records/${record.id}/proof?treeSize=2.5`, 400);
    await bad(`/v1/ledger/records/${record.id}/proof?treeSize=9`, 400); // does not hold leaf 9
    await bad(`/v1/ledger/records/${record.id}/proof?treeSize=${records.length + 1000}`, 404);
    await bad('/v1/ledger/records/rec_unknown/proof', 404);
    const n = records.length;
    await bad('/v1/ledger/log/consistency', 400);
    await bad('/v1/ledger/log/consistency?from=0&to=5', 400);
    await bad('/v1/ledger/log/consistency?from=6&to=5', 400);
    await bad(`/v1/ledger/log/consistency?from=1&to=${n + 1}`, 400);
    await bad('/v1/ledger/log/consistency?from=x', 400);
    await bad('/v1/ledger/log/consistency?from=1.5', 400);
  });

  it("keeps firms apart: another firm's record is 404, its log is its own", async () => {
    const response = await get(`/v1/ledger/records/${records[0]!.id}/proof`, other.key);
    expect(response.status).toBe(404);
    const theirs = parseCheckpoint(parseNote(text(await get('/v1/ledger/log/checkpoint', other.key))));
    expect(theirs.origin).toBe(`${new URL(stack.baseUrl).host}/ledger/${other.firmId}`);
    expect(theirs.size).toBeLessThan(records.length);
    // A firm without records has no checkpoint: its log answers 404, its vkeys are there already.
    const fresh = await onboardFirm(stack);
    for (const path of ['checkpoint', 'consistency?from=1', 'tile/0/000.p/1', 'tile/entries/000.p/1']) {
      const response = await get(`/v1/ledger/log/${path}`, fresh.key);
      expect([path, response.status, response.body.error.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await get('/v1/ledger/log/vkeys', fresh.key)).status).toBe(200);
  });

  it('appends every gathered witness cosignature to the served checkpoint, and to proofs of its size', async () => {
    const size = records.length;
    const checkpointText = parseNote(checkpoints.get(size)!.note);
    const deps = createLocalDeps({
      dataDir: stack.dataDir,
      dynamoEndpoint: stack.dynamoEndpoint,
      baseUrl: stack.baseUrl,
    });
    // Two witnesses cosign (C2SP tlog-cosignature) and the service keeps their lines, as the submitter does.
    const witnesses = ['witness.example/one', 'witness.example/two'].map((name) => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(12));
      return { name, raw, privateKey, vkey: formatVkey(name, 0x04, raw) };
    });
    for (const w of witnesses) {
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = sign(null, cosignatureMessage(checkpointText, timestamp), w.privateKey);
      const keyId = cosignatureKeyId(w.name, w.raw);
      await putCosignature(deps, firm.firmId, {
        size,
        witnessKeyId: Buffer.from(keyId).toString('hex'),
        line: formatSignatureLines([
          { name: w.name, keyId, signature: cosignatureSignature(timestamp, signature) },
        ]).trimEnd(),
        witnessName: w.name,
        cosignedAt: new Date().toISOString(),
      });
    }
    const witnessVerifiers = await Promise.all(witnesses.map((w) => verifierFromVkey(w.vkey)));
    const served = text(await get('/v1/ledger/log/checkpoint'));
    expect(parseNote(served)).toBe(checkpointText);
    expect(served.split('\n').filter((line) => line.startsWith('— '))).toHaveLength(4);
    const { verified } = await verifyNote(served, [...verifiers, ...witnessVerifiers]);
    expect(verified.map((v) => v.name).sort()).toEqual(
      [...verifiers.map((v) => v.name), ...witnesses.map((w) => w.name)].sort(),
    );
    const proof = parseTlogProof(
      text(await get(`/v1/ledger/records/${records[0]!.id}/proof?treeSize=${size}`)),
    );
    expect(proof.checkpoint).toBe(served);
    // An earlier checkpoint has no cosignature: its note is served as signed.
    const [earlier, { note }] = [...checkpoints.entries()][0]!;
    const before = parseTlogProof(
      text(await get(`/v1/ledger/records/${records[0]!.id}/proof?treeSize=${earlier}`)),
    );
    expect(before.checkpoint).toBe(note);
  });

  it('admits an auditor key to the log and the records, and nothing else', async () => {
    const created = await call(stack, 'POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'regulator', scope: 'auditor' },
    });
    expect(created.status).toBe(201);
    const auditor = created.body.key as string;
    const record = records[3]!;
    for (const path of [
      '/v1/ledger/log/checkpoint',
      '/v1/ledger/log/vkeys',
      '/v1/ledger/log/tile/0/000',
      '/v1/ledger/log/tile/entries/000.p/4',
      '/v1/ledger/log/consistency?from=4',
      `/v1/ledger/records/${record.id}/proof`,
      `/v1/ledger/records/${record.id}`,
      '/v1/ledger/records',
    ])
      expect([path, (await get(path, auditor)).status]).toEqual([path, 200]);
    for (const [method, path] of [
      ['GET', '/v1/ledger/export'],
      ['GET', '/v1/firm/me'],
      ['POST', '/v1/incidents'],
    ] as const) {
      const refused = await call(stack, method, path, {
        key: auditor,
        ...(method === 'POST' ? { body: incidentBody(9) } : {}),
      });
      expect([path, refused.status, refused.body.error.code]).toEqual([path, 403, 'FORBIDDEN']);
    }
  });

  it('a record row rewritten in the database fails its inclusion proof against an earlier checkpoint', async () => {
    const index = 42;
    const original = records[index]!;
    const earlier = [...checkpoints.keys()].filter((s) => s > index).sort((a, b) => a - b)[0]!;
    const forged = createHash('sha256').update('not what was committed').digest('hex');
    const deps = createLocalDeps({
      dataDir: stack.dataDir,
      dynamoEndpoint: stack.dynamoEndpoint,
      baseUrl: stack.baseUrl,
    });
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, original.sequenceNumber),
        UpdateExpression: 'SET chainHash = :forged',
        ExpressionAttributeValues: { ':forged': forged },
      }),
    );
    const tampered = (await get(`/v1/ledger/records/${original.id}`)).body as LedgerRecord;
    expect(tampered.chainHash).toBe(forged);
    const response = await get(`/v1/ledger/records/${original.id}/proof?treeSize=${earlier}`);
    expect(response.status).toBe(200);
    const proof = parseTlogProof(text(response));
    const root = parseCheckpoint(parseNote(proof.checkpoint)).root;
    expect(verifyInclusion(leafOf(tampered), index, earlier, proof.proof, root)).toBe(false);
    expect(verifyInclusion(leafOf(original), index, earlier, proof.proof, root)).toBe(true);
    // The entry bundle shows the rewritten row, which its own tile's hash no longer matches.
    const entries = parseEntryBundle((await get('/v1/ledger/log/tile/entries/000')).bytes);
    expect(Buffer.from(entries[index]!).toString('hex')).toBe(forged);
    const tile = (await get('/v1/ledger/log/tile/0/000')).bytes;
    expect(Buffer.from(tile.slice(index * 32, index * 32 + 32))).not.toEqual(
      Buffer.from(sha256(Uint8Array.of(0), entries[index]!)),
    );
  });
});

/** The checkpoint text of a signed note: everything before its blank line. */
function parseNote(note: string): string {
  return note.slice(0, note.indexOf('\n\n') + 1);
}

function randomBelow(n: number): number {
  return Math.floor(Math.random() * n);
}
