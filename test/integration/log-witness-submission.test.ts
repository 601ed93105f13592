import { until } from '../support/until.js';
import { generateKeyPairSync, sign } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCheckpoint } from '../../shared/domain/tlog/checkpoint.js';
import { cosignatureMessage, cosignatureSignature } from '../../shared/domain/tlog/cosignature.js';
import {
  cosignatureKeyId,
  formatNote,
  formatVkey,
  parseNote,
  parseVkey,
  SIG_COSIGNATURE_V1,
  verifierFromVkey,
  verifyNote,
} from '../../shared/domain/tlog/note.js';
import { WITNESS_REFUSED_LOG } from '../../shared/runtime/logger.js';
import { startStack, stopStack, type RunningStack } from '../support/local-stack.js';
import { call, incidentBody, onboardFirm, type StackResponse } from '../support/stack-client.js';
import { startWitness, stopWitness, type WitnessProcess } from '../support/witness-process.js';

/*
 * Submitting checkpoints to witnesses (issue 31) on a stack run like Lambda (4 instances): two of our own witnesses
 * (bin/witness.ts) run as real processes following the firm's log vkeys, registered through the API; their
 * cosignatures are gathered into the served checkpoint; a witness restarted from an older state answers 409 and
 * is answered with the proof from its size; a witness answering 422 raises the alarm (ERROR log, webhook
 * log.witness-refused, one LOG_WITNESS_REFUSED record per refusing episode).
 */

const INTERVAL_MS = 300;
const text = (response: StackResponse) => new TextDecoder().decode(response.bytes);

/** A witness that refuses every checkpoint with 422, as one holding another history would. */
function refusingWitness(): { server: Server; vkey: string; sizes: number[] } {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const vkey = formatVkey('refuser.test/w', SIG_COSIGNATURE_V1, new Uint8Array(raw));
  const sizes: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const note = body.slice(body.indexOf('\n\n') + 2);
      sizes.push(parseCheckpoint(parseNote(note).text).size);
      res.writeHead(422, { 'Content-Type': 'text/plain' });
      res.end('the checkpoint is not consistent with the one of size 1\n');
    });
  });
  return { server, vkey, sizes };
}

/**
 * A witness with an Ed25519 key that answers each add-checkpoint by the next step of `script`: 503, a cosignature
 * by another key (which must not be kept), or its own valid cosignature.
 */
function scriptedWitness(name: string, script: ('503' | 'foreign' | 'cosign')[]) {
  const key = (keyName: string) => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
    const cosign = (checkpointText: string) => {
      const time = Math.floor(Date.now() / 1000);
      const sig = sign(null, cosignatureMessage(checkpointText, time), privateKey);
      const signature = cosignatureSignature(time, new Uint8Array(sig));
      return formatNote(checkpointText, [
        { name: keyName, keyId: cosignatureKeyId(keyName, raw), signature },
      ]).slice(checkpointText.length + 1);
    };
    return { vkey: formatVkey(keyName, SIG_COSIGNATURE_V1, raw), cosign };
  };
  const own = key(name);
  const foreign = key(name);
  const answered: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const checkpointText = parseNote(body.slice(body.indexOf('\n\n') + 2)).text;
      const step = script[Math.min(answered.length, script.length - 1)]!;
      answered.push(step);
      if (step === '503') {
        res.writeHead(503, { 'Content-Type': 'text/plain' }).end('busy\n');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end((step === 'cosign' ? own : foreign).cosign(checkpointText));
    });
  });
  return { server, vkey: own.vkey, answered };
}

describe('submitting checkpoints to witnesses', () => {
  let stack: RunningStack;
  let firm: { firmId: string; key: string };
  let auditorKey: string;
  let tmp: string;
  let vkeysFile: string;
  let witnessA: WitnessProcess;
  let witnessB: WitnessProcess;
  let appended = 0;

  const witnesses = (key = firm.key) => call(stack, 'GET', '/v1/firm/me/witnesses', { key });
  const register = (body: unknown, key = firm.key) =>
    call(stack, 'POST', '/v1/firm/me/witnesses', { key, body });

  async function append(count: number): Promise<number> {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, n) =>
        call(stack, 'POST', '/v1/incidents', { key: firm.key, body: incidentBody(appended + n) }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(count).fill(201));
    appended += count;
    const head = await call(stack, 'GET', '/v1/ledger/records?order=desc&pageSize=1', { key: firm.key });
    return head.body.data[0].sequenceNumber as number;
  }

  /** The served checkpoint once it covers `size` and carries a verifying cosignature of each witness vkey. */
  async function cosignedBy(size: number, vkeys: string[]): Promise<{ note: string; size: number }> {
    const verifiers = await Promise.all(vkeys.map(verifierFromVkey));
    return until(`a checkpoint of size ≥ ${size} cosigned by ${vkeys.length} witnesses`, async () => {
      const response = await call(stack, 'GET', '/v1/ledger/log/checkpoint', { key: firm.key });
      if (response.status !== 200) return undefined;
      const note = text(response);
      const checkpoint = parseCheckpoint(parseNote(note).text);
      if (checkpoint.size < size) return undefined;
      try {
        const { verified } = await verifyNote(note, verifiers);
        return verified.length === vkeys.length ? { note, size: checkpoint.size } : undefined;
      } catch {
        return undefined;
      }
    });
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'gls-witnesses-'));
    stack = await startStack({
      instances: 4,
      env: { CHECKPOINT_INTERVAL_MS: String(INTERVAL_MS), SIGNER_LATENCY_MS: '2', LOG_LEVEL: 'ERROR' },
    });
    firm = await onboardFirm(stack);
    const auditor = await call(stack, 'POST', '/v1/firm/me/api-keys', {
      key: firm.key,
      body: { name: 'Regulator', scope: 'auditor' },
    });
    expect(auditor.status).toBe(201);
    auditorKey = auditor.body.key;
    // The witnesses follow the firm's log by its vkeys, as a witness operator would configure them.
    const vkeys = await call(stack, 'GET', '/v1/ledger/log/vkeys', { key: auditorKey });
    expect(vkeys.status).toBe(200);
    vkeysFile = join(tmp, 'log-vkeys.txt');
    writeFileSync(vkeysFile, text(vkeys));
    [witnessA, witnessB] = await Promise.all([
      startWitness(join(tmp, 'a'), 'witness-a.test/w', vkeysFile),
      startWitness(join(tmp, 'b'), 'witness-b.test/w', vkeysFile),
    ]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([witnessA, witnessB].filter(Boolean).map(stopWitness));
    if (stack) await stopStack(stack, { removeData: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  it('refuses bad witnesses with 400 and non-admins with 403, changing nothing', async () => {
    const logVkey = text(await call(stack, 'GET', '/v1/ledger/log/vkeys', { key: firm.key }))
      .trimEnd()
      .split('\n')
      .find((line) => parseVkey(line).type === 0x01)!;
    const [name, id, key] = witnessA.vkey.split('+');
    const wrongId = `${name}+${id === '00000000' ? '00000001' : '00000000'}+${key}`;
    const bad: [unknown, string][] = [
      [{ vkey: 'not a vkey', url: witnessA.url }, 'body.vkey'],
      [{ vkey: wrongId, url: witnessA.url }, 'body.vkey'],
      [{ vkey: logVkey, url: witnessA.url }, 'body.vkey'],
      [{ vkey: witnessA.vkey, url: 'http://witness.example.org/' }, 'body.url'],
      [{ vkey: witnessA.vkey, url: 'https://10.1.2.3/w' }, 'body.url'],
      [{ vkey: witnessA.vkey, url: 'https://169.254.169.254/latest' }, 'body.url'],
      [{ vkey: witnessA.vkey, url: 'ftp://witness.example.org/' }, 'body.url'],
      [{ vkey: witnessA.vkey }, 'body.url'],
    ];
    for (const [body, path] of bad) {
      const response = await register(body);
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    // An auditor key (read-only) is not a firm admin.
    expect((await witnesses(auditorKey)).status).toBe(403);
    expect((await register({ vkey: witnessA.vkey, url: witnessA.url }, auditorKey)).status).toBe(403);
    const keyId = parseVkey(witnessA.vkey).keyId;
    const hex = Buffer.from(keyId).toString('hex');
    expect((await call(stack, 'DELETE', `/v1/firm/me/witnesses/${hex}`, { key: auditorKey })).status).toBe(
      403,
    );
    const list = await witnesses();
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    expect((await call(stack, 'DELETE', `/v1/firm/me/witnesses/${hex}`, { key: firm.key })).status).toBe(404);
  });

  it('gathers both witnesses’ cosignatures into the served checkpoint', async () => {
    for (const witness of [witnessA, witnessB]) {
      const created = await register({ vkey: witness.vkey, url: `${witness.url}/` });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        vkey: witness.vkey,
        url: witness.url,
        scope: 'firm',
        keyId: Buffer.from(parseVkey(witness.vkey).keyId).toString('hex'),
      });
    }
    expect((await register({ vkey: witnessA.vkey, url: witnessA.url })).status).toBe(409);
    const size = await append(3);
    const served = await cosignedBy(size, [witnessA.vkey, witnessB.vkey]);
    // The log's own two signatures still verify beside the cosignatures.
    const logKeys = text(await call(stack, 'GET', '/v1/ledger/log/vkeys', { key: firm.key }))
      .trimEnd()
      .split('\n');
    const { verified } = await verifyNote(served.note, await Promise.all(logKeys.map(verifierFromVkey)));
    expect(verified).toHaveLength(2);
    const list = await witnesses();
    expect(list.body).toHaveLength(2);
    for (const witness of list.body)
      expect(witness.status).toMatchObject({ lastOutcome: 'cosigned', refusing: false });
  }, 120_000);

  it('answers a witness restarted from older state (409) with the proof from its size', async () => {
    // Keep B's state as it is now, let it cosign further, then restart it from the kept, older state.
    await stopWitness(witnessB);
    const snapshot = join(tmp, 'b-snapshot');
    cpSync(join(tmp, 'b'), snapshot, { recursive: true });
    witnessB = await startWitness(join(tmp, 'b'), 'witness-b.test/w', vkeysFile, witnessB.port);
    const middle = await append(4);
    await cosignedBy(middle, [witnessA.vkey, witnessB.vkey]);
    await stopWitness(witnessB);
    witnessB = await startWitness(snapshot, 'witness-b.test/w', vkeysFile, witnessB.port);
    const last = await append(2);
    await cosignedBy(last, [witnessA.vkey, witnessB.vkey]);
    // The restarted witness answered the size the service believed with its own, then cosigned.
    expect(witnessB.output()).toMatch(/"status":409/);
    expect(witnessB.output()).toMatch(/"status":200/);
  }, 180_000);

  it('raises the alarm once when a witness refuses (422): ERROR log, webhook log.witness-refused', async () => {
    const deliveries: { event: string; body: any }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        deliveries.push({ event: String(req.headers['x-service-event']), body: JSON.parse(body) });
        res.writeHead(204).end();
      });
    });
    const refuser = refusingWitness();
    await Promise.all(
      [receiver, refuser.server].map((s) => new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok))),
    );
    try {
      const hook = await call(stack, 'POST', '/v1/firm/me/webhooks', {
        key: firm.key,
        body: {
          url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
          events: ['log.witness-refused'],
        },
      });
      expect(hook.status).toBe(201);
      const refuserUrl = `http://127.0.0.1:${(refuser.server.address() as AddressInfo).port}`;
      expect((await register({ vkey: refuser.vkey, url: refuserUrl })).status).toBe(201);
      const size = await append(1);
      const delivery = await until('the log.witness-refused delivery', async () =>
        deliveries.find((d) => d.event === 'log.witness-refused'),
      );
      expect(delivery.body).toMatchObject({ firmId: firm.firmId, eventType: 'LOG_WITNESS_REFUSED' });
      const record = await call(stack, 'GET', `/v1/ledger/records/${delivery.body.id}`, { key: firm.key });
      const keyId = Buffer.from(parseVkey(refuser.vkey).keyId).toString('hex');
      expect(record.body.documentMetadata).toMatchObject({
        witnessKeyId: keyId,
        witnessName: 'refuser.test/w',
        witnessUrl: refuserUrl,
        checkpointSize: expect.any(Number),
      });
      expect(record.body.documentMetadata.checkpointSize).toBeGreaterThanOrEqual(size);
      expect(stack.output()).toContain(WITNESS_REFUSED_LOG);
      // The refusal record makes a new checkpoint, refused again: logged, but no second record (one per episode).
      await until('the checkpoint with the refusal record submitted', async () =>
        refuser.sizes.some((s) => s >= delivery.body.sequenceNumber) ? true : undefined,
      );
      const status = await until('the witness marked refusing', async () => {
        const entry = (await witnesses()).body.find((w: { keyId: string }) => w.keyId === keyId);
        return entry?.status.refusing && entry.status.lastOutcome === 'refused' ? entry.status : undefined;
      });
      expect(status.refusedSize).toBe(record.body.documentMetadata.checkpointSize);
      const refusals = await call(stack, 'GET', '/v1/ledger/records?eventType=LOG_WITNESS_REFUSED', {
        key: firm.key,
      });
      expect(refusals.body.data).toHaveLength(1);
      // The other witnesses still cosign, the refuser's line is never served.
      const served = await cosignedBy(delivery.body.sequenceNumber, [witnessA.vkey, witnessB.vkey]);
      expect(served.note).not.toContain('refuser.test/w');
      // Removing it stops the submissions.
      expect((await call(stack, 'DELETE', `/v1/firm/me/witnesses/${keyId}`, { key: firm.key })).status).toBe(
        204,
      );
      expect((await witnesses()).body.map((w: { keyId: string }) => w.keyId)).not.toContain(keyId);
    } finally {
      await Promise.all([receiver, refuser.server].map((s) => new Promise((ok) => s.close(ok))));
    }
  }, 180_000);
  it('retries a witness that did not answer (503) and keeps only a cosignature by its vkey', async () => {
    const witness = scriptedWitness('scripted.test/w', ['503', 'foreign', 'cosign']);
    await new Promise<void>((ok) => witness.server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(witness.server.address() as AddressInfo).port}`;
      const keyId = Buffer.from(parseVkey(witness.vkey).keyId).toString('hex');
      expect((await register({ vkey: witness.vkey, url })).status).toBe(201);
      const first = await append(1);
      // The 503 is retried after the backoff; the retry's answer carries a cosignature by another key.
      const status = await until(
        'the retry answered with a foreign cosignature',
        async () => {
          const entry = (await witnesses()).body.find((w: { keyId: string }) => w.keyId === keyId);
          return entry?.status.lastOutcome === 'bad-cosignature' ? entry.status : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(witness.answered.slice(0, 2)).toEqual(['503', 'foreign']);
      expect(status).toMatchObject({ acknowledgedSize: first, cosignedSize: null });
      const served = await cosignedBy(first, [witnessA.vkey, witnessB.vkey]);
      expect(served.note).not.toContain('scripted.test/w');
      // The next checkpoint is cosigned by its own key: kept and served.
      const next = await append(1);
      await cosignedBy(next, [witnessA.vkey, witnessB.vkey, witness.vkey]);
      expect((await call(stack, 'DELETE', `/v1/firm/me/witnesses/${keyId}`, { key: firm.key })).status).toBe(
        204,
      );
    } finally {
      await new Promise((ok) => witness.server.close(ok));
    }
  }, 120_000);
});
