import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { sha256 } from '@noble/hashes/sha2.js';
import { parseCheckpoint } from '../../shared/domain/tlog/checkpoint.js';
import {
  formatVkey,
  parseVkey,
  SIG_ECDSA,
  SIG_ED25519,
  verifierFromVkey,
  verifyNote,
} from '../../shared/domain/tlog/note.js';
import { createLocalDeps, localPaths } from '../../shared/runtime/local-deps.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { checkpointKeyAt } from '../../shared/ledger/key-history.js';
import { checkpointKeyHistory } from '../../shared/services/key-history.js';
import { keys } from '../../shared/store/keys.js';
import { readHead } from '../../shared/store/ledger-store.js';
import {
  readLatestCheckpoint,
  readLogLease,
  readLogTree,
  type StoredCheckpoint,
} from '../../shared/store/log-store.js';
import { runLogCheckpoint } from '../../shared/services/log-checkpoint-run.js';
import { ledgerctl, localMetrics, startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, chainOf, incidentBody, onboardFirm } from '../support/stack-client.js';

/**
 * Each firm's ledger as a verifiable log (issue 31) on the embedded stack run like Lambda: concurrent appends
 * get a checkpoint that covers them, whose root is the RFC 6962 hash of their chainHashes (computed here
 * naively) and whose two signatures verify; the log repairs itself after its progress is lost; a firm with no
 * new records gets no new checkpoint; a ledger written before the log existed gets its tree built.
 */

const INTERVAL_MS = 400;

let stack: RunningStack;
let deps: Deps;

beforeAll(async () => {
  stack = await startStack({
    instances: 4,
    env: {
      CHECKPOINT_INTERVAL_MS: String(INTERVAL_MS),
      LOG_REPAIR_INTERVAL_SECONDS: '1',
      SIGNER_LATENCY_MS: '15',
    },
  });
  deps = createLocalDeps({
    dataDir: stack.dataDir,
    dynamoEndpoint: stack.dynamoEndpoint,
    baseUrl: stack.baseUrl,
  });
});

afterAll(async () => {
  await stopStack(stack, { removeData: true });
});

/** RFC 6962 §2.1 Merkle tree hash, recursively, of leaf data. */
function naiveRoot(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return sha256(new Uint8Array(0));
  if (leaves.length === 1) return sha256(Uint8Array.from([0, ...leaves[0]!]));
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Uint8Array.from([1, ...naiveRoot(leaves.slice(0, k)), ...naiveRoot(leaves.slice(k))]));
}

async function waitForCheckpoint(firmId: string, size: number): Promise<StoredCheckpoint> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const latest = await readLatestCheckpoint(deps, firmId);
    if (latest && latest.size >= size) return latest;
    if (Date.now() > deadline) throw new Error(`No checkpoint of size ${size} (latest ${latest?.size})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The log's two vkeys for a firm, built from the stack's key files. */
async function verifiers(origin: string) {
  const paths = localPaths(stack.dataDir);
  const ecdsaSpki = createPublicKey(createPrivateKey(readFileSync(paths.signingKey, 'utf8'))).export({
    type: 'spki',
    format: 'der',
  });
  const edSpki = createPublicKey(createPrivateKey(readFileSync(paths.checkpointKey, 'utf8'))).export({
    type: 'spki',
    format: 'der',
  });
  return Promise.all([
    verifierFromVkey(formatVkey(origin, SIG_ECDSA, ecdsaSpki)),
    verifierFromVkey(formatVkey(origin, SIG_ED25519, edSpki.subarray(edSpki.length - 32))),
  ]);
}

async function expectCheckpointOfChain(
  firmId: string,
  key: string,
  checkpoint: StoredCheckpoint,
): Promise<void> {
  const chain = (await chainOf(stack, key)).slice(0, checkpoint.size);
  expect(chain).toHaveLength(checkpoint.size);
  const root = naiveRoot(chain.map((r) => Uint8Array.from(Buffer.from(r.chainHash, 'hex'))));
  expect(Buffer.from(checkpoint.root).toString('hex')).toBe(Buffer.from(root).toString('hex'));
  const origin = `${new URL(stack.baseUrl).host}/ledger/${firmId}`;
  const { text, verified } = await verifyNote(checkpoint.note, await verifiers(origin));
  expect(verified).toHaveLength(2);
  const parsed = parseCheckpoint(text);
  expect(parsed).toMatchObject({ origin, size: checkpoint.size });
  expect(Buffer.from(parsed.root).toString('hex')).toBe(Buffer.from(root).toString('hex'));
  // The Ed25519 key that signed is the checkpoint-key history's key at the checkpoint's time.
  const edKey = parseVkey((await verifiers(origin))[1].vkey).key;
  const entry = checkpointKeyAt(await checkpointKeyHistory(deps), checkpoint.signedAt);
  expect(entry?.publicKey).toBe(Buffer.from(edKey).toString('base64'));
}

describe('verifiable log checkpoints', () => {
  let firm: { firmId: string; key: string };

  beforeAll(async () => {
    firm = await onboardFirm(stack);
  });

  it('signs a checkpoint covering concurrent appends, with the naive root and two valid signatures', async () => {
    const responses = await Promise.all(
      Array.from({ length: 24 }, (_, n) =>
        call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(n) }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(24).fill(201));
    const head = await readHead(deps, firm.firmId);
    const checkpoint = await waitForCheckpoint(firm.firmId, head.sequenceNumber);
    expect(checkpoint.size).toBe(head.sequenceNumber);
    await expectCheckpointOfChain(firm.firmId, firm.key, checkpoint);
  });

  it('queues no witness submission for checkpoints of a firm without witnesses (and none on the platform)', async () => {
    const { workerInvocations } = await localMetrics(stack);
    expect(workerInvocations['log-checkpoint']).toBeGreaterThan(0);
    expect(workerInvocations['log-witness'] ?? 0).toBe(0);
  });

  it('gives a firm with no new records no new checkpoint', async () => {
    const before = await readLatestCheckpoint(deps, firm.firmId);
    expect(before).toBeDefined();
    // Several intervals and repair sweeps pass.
    await new Promise((r) => setTimeout(r, 5 * INTERVAL_MS + 2_000));
    const after = await readLatestCheckpoint(deps, firm.firmId);
    expect(after).toEqual(before);
  });

  it('repairs lost progress: LOGTREE gone, the sweep rebuilds it to the same root and later records follow', async () => {
    const before = (await readLogTree(deps, firm.firmId))!;
    await deps.db.send(new DeleteCommand({ TableName: deps.tables.ledger, Key: keys.logTree(firm.firmId) }));
    const deadline = Date.now() + 30_000;
    let rebuilt = await readLogTree(deps, firm.firmId);
    while (!rebuilt && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      rebuilt = await readLogTree(deps, firm.firmId);
    }
    expect(rebuilt?.size).toBe(before.size);
    expect(Buffer.from(rebuilt!.root).equals(Buffer.from(before.root))).toBe(true);
    const more = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(99) });
    expect(more.status).toBe(201);
    const head = await readHead(deps, firm.firmId);
    const checkpoint = await waitForCheckpoint(firm.firmId, head.sequenceNumber);
    await expectCheckpointOfChain(firm.firmId, firm.key, checkpoint);
  });

  it('builds the tree of a ledger written before the log existed (seeded straight into the tables)', async () => {
    const seeded = await onboardFirm(stack);
    const result = await ledgerctl(stack.dataDir, [
      'seed',
      '--firm',
      seeded.firmId,
      '--records',
      '600',
      '--jobs',
      '5',
    ]);
    if (result.code !== 0) throw new Error(`ledgerctl seed failed: ${result.stderr}`);
    const head = await readHead(deps, seeded.firmId);
    expect(head.sequenceNumber).toBeGreaterThanOrEqual(600);
    const checkpoint = await waitForCheckpoint(seeded.firmId, head.sequenceNumber);
    expect(checkpoint.size).toBe(head.sequenceNumber);
    await expectCheckpointOfChain(seeded.firmId, seeded.key, checkpoint);
  });

  it('ends a run sent for commits the last checkpoint covers on a read, with no write; a repair run still integrates', async () => {
    const own = await onboardFirm(stack);
    for (let n = 0; n < 3; n++)
      expect(
        (await call(stack, 'POST', '/v1/incidents', { key: own.key, body: incidentBody(n) })).status,
      ).toBe(201);
    const head = (await readHead(deps, own.firmId)).sequenceNumber;
    await waitForCheckpoint(own.firmId, head);
    // The stack's run lets go of the lease saying what its checkpoint covers.
    const deadline = Date.now() + 30_000;
    let lease = await readLogLease(deps, own.firmId);
    while (lease.held && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      lease = await readLogLease(deps, own.firmId);
    }
    expect(lease).toEqual({ held: false, covered: head });

    // The same code the worker runs, its DynamoDB calls counted.
    const calls: string[] = [];
    const counted: Deps = {
      ...deps,
      db: {
        send: ((command: object) => {
          calls.push(command.constructor.name.replace(/Command$/, ''));
          return deps.db.send(command as never);
        }) as Deps['db']['send'],
      },
    };
    const run = (message: Parameters<typeof runLogCheckpoint>[1]) => {
      calls.length = 0;
      return runLogCheckpoint(counted, message, 30_000);
    };
    const nothing = { checkpoints: 0, integrated: 0, leaseHeld: false, continued: false };
    // An immediate message up to a covered record: the lease read alone.
    expect(await run({ firmId: own.firmId, commits: { upTo: head } })).toEqual(nothing);
    expect(calls).toEqual(['Get']);
    // A trailing message (up to whatever its window committed): the lease and the head.
    expect(await run({ firmId: own.firmId, commits: {} })).toEqual(nothing);
    expect(calls).toEqual(['Get', 'Get']);
    // The repair sweep's message always integrates (LOGTREE may be behind): it takes the lease and lets it go.
    expect(await run({ firmId: own.firmId })).toEqual(nothing);
    expect(calls.filter((name) => name === 'Put')).toHaveLength(2);
    // A record past what the lease says is covered: the run takes the lease and checkpoints it.
    expect((await call(stack, 'POST', '/v1/incidents', { key: own.key, body: incidentBody(9) })).status).toBe(
      201,
    );
    await waitForCheckpoint(own.firmId, head + 1);
  });
});
