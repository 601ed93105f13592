import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { endorsementMessage, type SigningKeyHistory } from '../../shared/ledger/key-history.js';
import { windowKeyAt } from '../../shared/ledger/key-rotation.js';
import type { LedgerRecord } from '../../shared/ledger/record.js';
import { createLocalDeps, localPaths } from '../../shared/runtime/local-deps.js';
import { keys } from '../../shared/store/keys.js';
import { immutableKeyHistoryKey } from '../../shared/services/signing-key-admin.js';
import { ledgerctl, ROOT, startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import {
  call,
  chainOf,
  expectSoundChain,
  incidentBody,
  onboardFirm,
  verifyChain,
} from '../support/stack-client.js';

/**
 * Issue 15 end to end on a stack of its own (rotations change the key history of the whole stack): a firm's
 * chain spans two rotations (ledgerctl signing-key rotate, as an operator runs it) and one revocation; every
 * record is signed by the key whose window holds its timestamp, each change of key is preceded by
 * SIGNING_KEY_ROTATED, verification reports exactly the records the revocation condemns, an old certificate
 * still verifies publicly, a record forged with a retired key is caught, and openssl verifies a record under
 * each key.
 */

const TTL_MS = 300;
const LEAD_SECONDS = '2';

let stack: RunningStack;
let firm: { firmId: string; key: string };
let n = 0;

beforeAll(async () => {
  // Four Lambda-like instances, each with its own history cache and its own signers, as in AWS.
  stack = await startStack({ instances: 4, env: { KEY_HISTORY_TTL_MS: String(TTL_MS) } });
  firm = await onboardFirm(stack);
});

afterAll(async () => {
  if (stack) await stopStack(stack, { removeData: true });
});

async function incident(): Promise<void> {
  const response = await call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(++n) });
  expect(response.status).toBe(201);
}

async function ctl(args: string[]): Promise<SigningKeyHistory> {
  const result = await ledgerctl(stack.dataDir, ['signing-key', ...args]);
  if (result.code !== 0) throw new Error(`ledgerctl failed: ${result.stderr}`);
  return result.json as SigningKeyHistory;
}

/** Until every instance has read the history (its TTL) and the newest key's window is open. */
async function untilOpen(history: SigningKeyHistory): Promise<void> {
  const wait = Date.parse(history.keys.at(-1)!.validFrom) + TTL_MS + 200 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

async function waitFor<T>(probe: () => Promise<T | null | undefined>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('Timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function opensslVerifies(dir: string, publicKey: string, signature: string, message: Buffer | string) {
  writeFileSync(join(dir, 'key.der'), Buffer.from(publicKey, 'base64'));
  execFileSync('openssl', [
    'pkey',
    '-pubin',
    '-inform',
    'DER',
    '-in',
    join(dir, 'key.der'),
    '-out',
    join(dir, 'key.pem'),
  ]);
  writeFileSync(join(dir, 'sig.der'), Buffer.from(signature, 'base64'));
  writeFileSync(join(dir, 'message'), message);
  const result = spawnSync('openssl', [
    'dgst',
    '-sha256',
    '-verify',
    join(dir, 'key.pem'),
    '-signature',
    join(dir, 'sig.der'),
    join(dir, 'message'),
  ]);
  return result.status === 0 && result.stdout.toString().trim() === 'Verified OK';
}

describe('signing-key rotation and revocation', () => {
  it('spans two rotations and one revocation: keys by timestamp, SIGNING_KEY_ROTATED, verification, certificates, openssl', async () => {
    await incident();
    await incident();
    const certified = (await chainOf(stack, firm.key)).at(-1)!;
    expect(
      (await call(stack, 'POST', `/v1/ledger/records/${certified.id}/certificate`, { key: firm.key })).status,
    ).toBe(200);
    const certificateId = await waitFor(async () => {
      const r = await call(stack, 'GET', `/v1/ledger/records/${certified.id}/certificate`, { key: firm.key });
      return r.status === 200 ? (r.body.certificateId as string) : null;
    });

    // Rotation 1: an append during the lead time is still signed by the first key (its timestamp is before
    // the switch), the appends after it by the second, after a SIGNING_KEY_ROTATED.
    const second = await ctl(['rotate', '--lead-seconds', LEAD_SECONDS]);
    expect(second.version).toBe(2);
    expect(second.keys).toHaveLength(2);
    expect(second.keys[0]!.validUntil).toBe(second.keys[1]!.validFrom);
    await incident();
    await untilOpen(second);
    await incident();
    await incident();

    // Rotation 2.
    const third = await ctl(['rotate', '--lead-seconds', LEAD_SECONDS]);
    expect(third.version).toBe(3);
    await incident();
    await untilOpen(third);
    await incident();

    // Revocation of the second key from the time of its second incident: that one and any later record of the
    // key fail verification, the earlier ones stay valid.
    const [keyA, keyB, keyC] = third.keys;
    let chain = await chainOf(stack, firm.key);
    const byB = chain.filter((r) => r.publicKey === keyB!.publicKey && r.eventType === 'INCIDENT_LOGGED');
    expect(byB.length).toBeGreaterThanOrEqual(2);
    const revokedFrom = byB[1]!.timestamp;
    const revoked = await ctl(['revoke', '--key', keyB!.fingerprint, '--from', revokedFrom]);
    expect(revoked.version).toBe(4);
    expect(revoked.keys).toHaveLength(3); // not the current key: no rotation
    expect(revoked.keys[1]!.revokedFrom).toBe(revokedFrom);

    // Published as written (once the route's cache has turned over), and every version is in the immutable store.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
    const published = await call(stack, 'GET', '/.well-known/signing-keys');
    expect(published.status).toBe(200);
    expect(published.headers.get('cache-control')).toBe('public, max-age=300');
    expect(published.body).toEqual(revoked);
    expect((await call(stack, 'GET', '/.well-known/signing-key')).body).toMatchObject({
      publicKey: keyC!.publicKey,
      fingerprint: keyC!.fingerprint,
    });
    const deps = createLocalDeps({
      dataDir: stack.dataDir,
      dynamoEndpoint: stack.dynamoEndpoint,
      baseUrl: stack.baseUrl,
    });
    for (const version of [1, 2, 3, 4])
      expect(await deps.objects.get('immutable', immutableKeyHistoryKey(version))).not.toBeNull();

    // Every record is signed by the key whose window holds its timestamp; each first record under a new key
    // is preceded by SIGNING_KEY_ROTATED naming both fingerprints, signed by the new key.
    chain = await chainOf(stack, firm.key);
    for (const record of chain)
      expect(record.publicKey).toBe(windowKeyAt(revoked, record.timestamp)!.publicKey);
    expect(new Set(chain.map((r) => r.publicKey))).toEqual(
      new Set([keyA!.publicKey, keyB!.publicKey, keyC!.publicKey]),
    );
    const rotations = chain.filter((r) => r.eventType === 'SIGNING_KEY_ROTATED');
    expect(rotations.map((r) => r.documentMetadata)).toEqual([
      expect.objectContaining({
        previousKeyFingerprint: keyA!.fingerprint,
        newKeyFingerprint: keyB!.fingerprint,
      }),
      expect.objectContaining({
        previousKeyFingerprint: keyB!.fingerprint,
        newKeyFingerprint: keyC!.fingerprint,
      }),
    ]);
    for (const rotation of rotations) {
      const before = chain[rotation.sequenceNumber - 2]!;
      const after = chain[rotation.sequenceNumber]!;
      expect(before.publicKey).not.toBe(rotation.publicKey);
      expect(after.publicKey).toBe(rotation.publicKey);
      expect(rotation.actorId).toBe('system:signing-key-rotation');
    }

    // Verification: exactly the second key's records from its revocation on are KEY_REVOKED.
    const condemned = chain.filter((r) => r.publicKey === keyB!.publicKey && r.timestamp >= revokedFrom);
    const { done } = await verifyChain(stack, firm.key);
    expect(done.result.brokenRecords).toEqual(
      condemned.map((r) => ({
        sequenceNumber: r.sequenceNumber,
        recordId: r.id,
        problems: [{ code: 'KEY_REVOKED', message: expect.any(String) }],
      })),
    );

    // The standalone verifier (curl, jq, openssl, Python) applies the same rule with the published history.
    const script = spawnSync('bash', [join(ROOT, 'scripts/verify-chain.sh')], {
      env: { ...process.env, BASE_URL: stack.baseUrl, API_KEY: firm.key },
      encoding: 'utf8',
    });
    expect(script.status).toBe(1);
    const failures = script.stdout.split('\n').filter((line) => line.startsWith('FAIL '));
    expect(failures).toEqual(
      condemned.map((r) => expect.stringMatching(`^FAIL seq=${r.sequenceNumber} id=${r.id} KEY_REVOKED`)),
    );

    // An evidence bundle carries the published history; the offline CLI finds exactly the revoked records.
    const exported = await call(stack, 'GET', '/v1/ledger/export?fromSequence=1', { key: firm.key });
    expect(exported.status).toBe(200);
    expect(exported.body.keyHistory).toEqual(revoked);
    writeFileSync(join(stack.dataDir, 'bundle.json'), JSON.stringify(exported.body));
    const cli = spawnSync(
      process.execPath,
      [join(ROOT, 'bin/verify-evidence.mjs'), join(stack.dataDir, 'bundle.json')],
      {
        encoding: 'utf8',
      },
    );
    const offline = JSON.parse(cli.stdout) as {
      valid: boolean;
      failures: { code: string; sequenceNumber: number }[];
    };
    expect(cli.status).not.toBe(0);
    expect(offline.failures.map((f) => [f.code, f.sequenceNumber])).toEqual(
      condemned.map((r) => ['KEY_REVOKED', r.sequenceNumber]),
    );

    // The certificate of a record signed by the first key still verifies publicly, as JSON and as the page.
    const verdict = await call(stack, 'GET', `/v1/verify/${certificateId}`);
    expect(verdict.body).toMatchObject({ valid: true, reason: null, record: { publicKey: keyA!.publicKey } });
    const page = await call(stack, 'GET', `/verify/${certificateId}`);
    expect(page.status).toBe(200);

    // openssl verifies a record under each key, and each endorsement with the previous key.
    const dir = mkdtempSync(join(tmpdir(), 'gls-rotation-openssl-'));
    for (const key of [keyA!, keyB!, keyC!]) {
      const record = chain.find((r) => r.publicKey === key.publicKey)!;
      expect(opensslVerifies(dir, key.publicKey, record.signature, record.chainHash)).toBe(true);
      expect(opensslVerifies(dir, key.publicKey, record.signature, `${record.chainHash}x`)).toBe(false);
    }
    expect(
      opensslVerifies(dir, keyA!.publicKey, keyB!.endorsement!.signature, endorsementMessage(keyB!)),
    ).toBe(true);
    expect(
      opensslVerifies(dir, keyB!.publicKey, keyC!.endorsement!.signature, endorsementMessage(keyC!)),
    ).toBe(true);
    expect(
      opensslVerifies(dir, keyC!.publicKey, keyC!.endorsement!.signature, endorsementMessage(keyC!)),
    ).toBe(false);

    // A record forged with the retired first key after its validUntil, written straight into the ledger table:
    // its hashes and signature hold, its key's window does not.
    const last = chain.at(-1)!;
    expect(Date.parse(last.timestamp)).toBeGreaterThanOrEqual(Date.parse(keyA!.validUntil!));
    const firstKey = createPrivateKey(readFileSync(localPaths(stack.dataDir).signingKey, 'utf8'));
    const { Item } = await deps.db.send(
      new GetCommand({
        TableName: deps.tables.ledger,
        Key: keys.ledgerRecord(firm.firmId, last.sequenceNumber),
      }),
    );
    await deps.db.send(
      new PutCommand({
        TableName: deps.tables.ledger,
        Item: {
          ...Item,
          publicKey: keyA!.publicKey,
          signature: sign('sha256', Buffer.from(last.chainHash), {
            key: firstKey,
            dsaEncoding: 'der',
          }).toString('base64'),
        },
      }),
    );
    const forged = (await verifyChain(stack, firm.key)).done.result.brokenRecords as {
      sequenceNumber: number;
      problems: { code: string }[];
    }[];
    expect(forged.find((b) => b.sequenceNumber === last.sequenceNumber)!.problems.map((p) => p.code)).toEqual(
      ['KEY_NOT_VALID_AT_TIMESTAMP'],
    );

    // Revoking the current key rotates in the same version: the revoked key no longer signs what comes.
    const replaced = await ctl([
      'revoke',
      '--key',
      keyC!.fingerprint,
      '--from',
      '2099-01-01T00:00:00.000Z',
      '--lead-seconds',
      LEAD_SECONDS,
    ]);
    expect(replaced.version).toBe(5);
    expect(replaced.keys).toHaveLength(4);
    expect(replaced.keys[2]).toMatchObject({
      revokedFrom: '2099-01-01T00:00:00.000Z',
      validUntil: replaced.keys[3]!.validFrom,
    });
    expect(replaced.keys[3]!.endorsement!.signedBy).toBe(keyC!.fingerprint);
    await untilOpen(replaced);
    await incident();
    const newest = (await chainOf(stack, firm.key)).slice(-2) as LedgerRecord[];
    expect(newest.map((r) => [r.eventType, r.publicKey])).toEqual([
      ['SIGNING_KEY_ROTATED', replaced.keys[3]!.publicKey],
      ['INCIDENT_LOGGED', replaced.keys[3]!.publicKey],
    ]);
  });

  it('concurrent appends across a switch all commit, each signed by the key of its timestamp', async () => {
    const other = await onboardFirm(stack);
    const burst = (from: number) =>
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(stack, 'POST', '/v1/incidents', { key: other.key, body: incidentBody(from + i) }),
        ),
      );
    const before = await burst(0);
    const history = await ctl(['rotate', '--lead-seconds', '1']);
    // Bursts during the lead time, at the switch and after it: no append fails because of the rotation.
    const during = await burst(100);
    await untilOpen(history);
    const after = await burst(200);
    for (const response of [...before, ...during, ...after]) expect(response.status).toBe(201);
    const chain = await chainOf(stack, other.key);
    expectSoundChain(chain);
    expect(chain.filter((r) => r.eventType === 'INCIDENT_LOGGED')).toHaveLength(36);
    for (const record of chain)
      expect(record.publicKey).toBe(windowKeyAt(history, record.timestamp)!.publicKey);
    const rotations = chain.filter((r) => r.eventType === 'SIGNING_KEY_ROTATED');
    expect(rotations).toHaveLength(1);
    const first = chain.findIndex((r) => r.publicKey === history.keys.at(-1)!.publicKey);
    expect(chain[first]!.eventType).toBe('SIGNING_KEY_ROTATED');
    expect((await verifyChain(stack, other.key)).done.result).toMatchObject({ valid: true, brokenCount: 0 });
  });
});
