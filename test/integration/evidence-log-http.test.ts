import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { leafHash } from '../../shared/domain/tlog/hash.js';
import { appendLeaves } from '../../shared/domain/tlog/tree.js';
import type { EvidenceBundle } from '../../shared/ledger/evidence-bundle.js';
import { payloadOf, type LedgerRecord } from '../../shared/ledger/record.js';
import { sealRecord } from '../../shared/ledger/seal.js';
import { publicKeyBase64 } from '../../shared/ledger/signing-key.js';
import { createLocalDeps } from '../../shared/runtime/local-deps.js';
import { signCheckpointNote } from '../../shared/services/log-checkpoint.js';
import { keys } from '../../shared/store/keys.js';
import { edKey, witnessVkey } from '../support/evidence-log-fixtures.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, incidentBody, onboardFirm } from '../support/stack-client.js';
import { MemoryTiles } from '../unit/tlog/memory-tiles.js';

/*
 * Proofs in the evidence over HTTP (issue 31): an exported bundle carries the log, the committed CLI verifies it
 * and a checkpoint kept earlier (--since); then whoever holds the service's keys rewrites a record and its
 * successors straight in DynamoDB Local, reseals the chain, rebuilds the tree with the integrator's code and signs
 * a checkpoint of it: `verify-evidence monitor` and `--since` both catch the rewritten history.
 */

const CLI = 'bin/verify-evidence.mjs';
const INTERVAL_MS = 200;

describe('evidence bundles with the verifiable log over HTTP', () => {
  let stack: RunningStack;
  let firm: { firmId: string; key: string };
  const dir = mkdtempSync(join(tmpdir(), 'gls-evidence-log-'));
  const file = (name: string) => join(dir, name);

  const cli = (...args: string[]) => {
    const run = spawnSync('node', [CLI, ...args], {
      encoding: 'utf8',
      env: { ...process.env, GLS_API_KEY: firm.key },
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const append = async (from: number, count: number) => {
    for (let n = 0; n < count; n += 1) {
      const answer = await call(stack, 'POST', '/v1/incidents', {
        key: firm.key,
        body: incidentBody(from + n),
      });
      expect(answer.status).toBe(201);
    }
  };
  /** The served checkpoint once it covers `size` records. */
  const checkpointOf = async (size: number): Promise<string> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await call(stack, 'GET', '/v1/ledger/log/checkpoint', { key: firm.key });
      const note = new TextDecoder().decode(response.bytes);
      if (response.status === 200 && Number(note.split('\n')[1]) >= size) return note;
      if (Date.now() > deadline) throw new Error(`no checkpoint of size ${size}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const exportBundle = async (query: string) => {
    const response = await call(stack, 'GET', `/v1/ledger/export?${query}`, { key: firm.key });
    expect(response.status).toBe(200);
    writeFileSync(file('bundle.json'), JSON.stringify(response.body));
    return response.body as EvidenceBundle;
  };

  let keptSize: number;

  beforeAll(async () => {
    stack = await startStack({
      // The tamper watch off: the test rewrites history straight in the table, as whoever holds the service's keys
      // could, and the watch would answer each rewritten row with a TAMPERING_DETECTED record (tamper-watch.test.ts
      // covers that); here the monitor and --since must catch the rewrite on their own.
      env: {
        CHECKPOINT_INTERVAL_MS: String(INTERVAL_MS),
        SIGNER_LATENCY_MS: '1',
        LOCAL_STREAM_WORKERS: 'false',
      },
    });
    firm = await onboardFirm(stack);
    await append(1, 5);
    keptSize = (await chainOf(stack, firm.key)).length;
    writeFileSync(file('old-checkpoint.txt'), await checkpointOf(keptSize));
  }, 120_000);

  afterAll(async () => {
    await stopStack(stack, { removeData: true });
  });

  it('monitor pins the vkeys on first use and keeps the checkpoint', () => {
    const run = cli('monitor', '--base', stack.baseUrl, '--state', file('monitor.json'));
    expect(run.stderr).toContain('trusting these log vkeys on first use');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ consistent: true, size: keptSize });
    const state = JSON.parse(readFileSync(file('monitor.json'), 'utf8'));
    expect(state.vkeys).toHaveLength(2);
  });

  it('exports a bundle with the log that the CLI verifies, and --since the kept checkpoint', async () => {
    await append(10, 4);
    const head = keptSize + 4;
    await checkpointOf(head);
    const bundle = await exportBundle(`consistencyFrom=${keptSize}`);
    expect(bundle.log).toMatchObject({ uncoveredFromSequence: null, consistency: { fromSize: keptSize } });
    expect(bundle.log!.proofs).toHaveLength(head);
    const run = cli('--since', file('old-checkpoint.txt'), file('bundle.json'));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const verdict = JSON.parse(run.stdout);
    expect(verdict.log).toMatchObject({
      size: head,
      included: head,
      since: { size: keptSize, consistent: true },
    });
    // Without the proof from the kept size, --since says how to export.
    await exportBundle('');
    const unproven = cli('--since', file('old-checkpoint.txt'), file('bundle.json'));
    expect(unproven.status).toBe(1);
    expect(unproven.stdout).toContain(`consistencyFrom=${keptSize}`);
    // A witness policy the log's checkpoint cannot meet (no witness cosigned it).
    const witness = witnessVkey({ name: 'witness.example', key: edKey() });
    const policy = cli('--witness', witness, '--witnesses-needed', '1', file('bundle.json'));
    expect(policy.status).toBe(1);
    expect(JSON.parse(policy.stdout).failures.map((f: { code: string }) => f.code)).toEqual([
      'WITNESS_POLICY',
    ]);
    expect(cli('--witness', 'not-a-vkey', file('bundle.json')).status).toBe(2);
  }, 120_000);

  it('monitor and --since catch a history rewritten with the service keys', async () => {
    const records = await chainOf(stack, firm.key);
    const deps = createLocalDeps({
      dataDir: stack.dataDir,
      dynamoEndpoint: stack.dynamoEndpoint,
      baseUrl: stack.baseUrl,
    });
    process.env.PUBLIC_BASE_URL = stack.baseUrl;
    const publicKey = await publicKeyBase64(deps.signer);
    // Rewrite record 3 and reseal it and every successor consistently (hash, chain, signature).
    const rewritten: LedgerRecord[] = records.slice(0, 2);
    for (const record of records.slice(2)) {
      const payload = payloadOf(record);
      const changed =
        record.sequenceNumber === 3
          ? { ...payload, documentMetadata: { ...payload.documentMetadata, rewritten: true } }
          : payload;
      const sealed = await sealRecord(changed, rewritten.at(-1)!.chainHash, deps.signer, publicKey);
      rewritten.push(sealed);
      const key = keys.ledgerRecord(firm.firmId, record.sequenceNumber);
      const { Item } = await deps.db.send(new GetCommand({ TableName: deps.tables.ledger, Key: key }));
      await deps.db.send(new PutCommand({ TableName: deps.tables.ledger, Item: { ...Item, ...sealed } }));
    }
    // Rebuild the tree from the rewritten history with the integrator's code, and sign a checkpoint of it.
    const tiles = new MemoryTiles();
    const tree = await appendLeaves(
      tiles,
      0,
      rewritten.map((r) => leafHash(Buffer.from(r.chainHash, 'hex'))),
    );
    for (const { ref, data } of tree.tiles)
      await deps.db.send(
        new PutCommand({
          TableName: deps.tables.ledger,
          Item: { ...keys.logTile(firm.firmId, ref.level, ref.index), ...ref, hashes: data },
        }),
      );
    const signedAt = new Date();
    const note = await signCheckpointNote(deps, firm.firmId, tree, signedAt);
    const attributes = { size: tree.size, root: tree.root, note, signedAt: signedAt.toISOString() };
    for (const key of [
      keys.checkpoint(firm.firmId, tree.size),
      keys.latestCheckpoint(firm.firmId),
      keys.logTree(firm.firmId),
    ])
      await deps.db.send(new PutCommand({ TableName: deps.tables.ledger, Item: { ...key, ...attributes } }));
    expect(await checkpointOf(tree.size)).toBe(note);

    // The rewritten log on its own verifies (every record sealed and included)...
    await exportBundle(`consistencyFrom=${keptSize}`);
    expect(cli(file('bundle.json')).status).toBe(0);
    // ...but not against the checkpoint the auditor kept: both notes printed.
    const since = cli('--since', file('old-checkpoint.txt'), file('bundle.json'));
    expect(since.status).toBe(1);
    const verdict = JSON.parse(since.stdout);
    expect(verdict.failures.map((f: { code: string }) => f.code)).toEqual(['INCONSISTENT_HISTORY']);
    expect(verdict.failures[0].message).toContain(readFileSync(file('old-checkpoint.txt'), 'utf8'));
    expect(verdict.failures[0].message).toContain(note);

    const monitor = cli('monitor', '--base', stack.baseUrl, '--state', file('monitor.json'));
    expect(monitor.status).toBe(1);
    expect(monitor.stdout).toContain('"consistent": false');
    expect(monitor.stdout).toContain(readFileSync(file('old-checkpoint.txt'), 'utf8'));
    expect(monitor.stdout).toContain(note);
    // The state still holds the checkpoint it trusted.
    expect(JSON.parse(readFileSync(file('monitor.json'), 'utf8')).checkpoint).toBe(
      readFileSync(file('old-checkpoint.txt'), 'utf8'),
    );
  }, 120_000);
});
