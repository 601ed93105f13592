import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCheckpoint } from '../../shared/domain/tlog/checkpoint.js';
import { parseNote, SIG_ECDSA, verifierFromVkey, verifyNote } from '../../shared/domain/tlog/note.js';
import { ROOT } from '../support/local-stack.js';
import { addCheckpointBody, FixtureLog } from '../unit/tlog/log-fixture.js';

/**
 * Our C2SP tlog-witness as a real process (bin/witness.ts through tsx), on a free port with a temporary state
 * folder, fed checkpoints of logs built with the core library and locally generated keys: each status of the
 * spec, cosignatures that verify with the core's verifier, its size kept across restarts (clean and kill -9),
 * one process per state folder, and never two inconsistent checkpoints cosigned under concurrent submissions.
 */

// One process (node with tsx's loader), so a signal reaches the witness itself, not a wrapper.
const NODE_ARGS = ['--import', 'tsx', 'bin/witness.ts'];

interface Witness {
  child: ChildProcess;
  url: string;
  vkey: string;
  output: () => string;
}

function run(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [...NODE_ARGS, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, output: () => output, exited };
}

async function startWitness(stateDir: string, logArgs: string[], name?: string): Promise<Witness> {
  const nameArgs = name ? ['--name', name] : [];
  const { child, output, exited } = run([
    '--listen',
    '127.0.0.1:0',
    '--state',
    stateDir,
    ...nameArgs,
    ...logArgs,
  ]);
  const url = await Promise.race([
    new Promise<string>((ready) => {
      const onData = () => {
        const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output());
        if (match) {
          child.stdout!.off('data', onData);
          ready(match[1]!);
        }
      };
      child.stdout!.on('data', onData);
    }),
    exited.then((code) => {
      throw new Error(`witness exited with ${code}:\n${output()}`);
    }),
  ]);
  const vkey = /^vkey (\S+)$/m.exec(output())![1]!;
  return { child, url, vkey, output };
}

async function stop(w: Witness, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (w.child.exitCode !== null) return;
  const exited = new Promise((done) => w.child.once('exit', done));
  w.child.kill(signal);
  await exited;
}

async function submit(w: Witness, oldSize: number, proof: Uint8Array[], checkpoint: string) {
  const res = await fetch(`${w.url}/add-checkpoint`, {
    method: 'POST',
    body: addCheckpointBody(oldSize, proof, checkpoint),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('witness over HTTP', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'gls-witness-'));
  const log = new FixtureLog('ledger.test:8443/ledger/firm_A');
  const other = new FixtureLog('ledger.test:8443/ledger/firm_B');
  let keysFile: string;
  let logArgs: string[];
  let witness: Witness;

  beforeAll(async () => {
    keysFile = join(stateDir, '..', `${stateDir.split('/').pop()}-logs.txt`);
    // firm A by both its keys, from a file and a flag; firm B by its Ed25519 key under an explicit origin.
    writeFileSync(keysFile, `# firm A\n${log.ecdsaVkey}\n`);
    logArgs = [
      '--log-vkeys-file',
      keysFile,
      '--log-vkey',
      log.ed25519Vkey,
      '--log-vkey',
      `${other.origin} ${other.ed25519Vkey}`,
    ];
    witness = await startWitness(stateDir, logArgs, 'witness.test/w1');
    await log.append(20);
    await other.append(3);
  });

  afterAll(async () => {
    await stop(witness);
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(keysFile, { force: true });
  });

  it('prints its C2SP vkey (type 0x04) and makes its key once, readable by its owner only', () => {
    expect(witness.vkey).toMatch(/^witness\.test\/w1\+[0-9a-f]{8}\+/);
    expect(Buffer.from(witness.vkey.split('+')[2]!, 'base64')[0]).toBe(0x04);
    expect(statSync(join(stateDir, 'witness-key.pem')).mode & 0o777).toBe(0o600);
    expect(witness.output()).toContain(`following ${log.origin}, ${other.origin}`);
  });

  it('--help names its flags', async () => {
    const help = run(['--help']);
    expect(await help.exited).toBe(0);
    for (const flag of ['--listen', '--log-vkey', '--log-vkeys-file', '--state', '--name']) {
      expect(help.output()).toContain(flag);
    }
  });

  it('consistent checkpoints → 200 with a cosignature/v1 line that verifies with the core', async () => {
    const checkpoint = await log.checkpoint(10);
    const first = await submit(witness, 0, [], checkpoint);
    expect(first.status).toBe(200);
    expect(first.body).toMatch(/^\u2014 witness\.test\/w1 \S+\n$/);
    const { text } = parseNote(checkpoint);
    const cosigned = `${text}\n${first.body}`;
    const verifier = await verifierFromVkey(witness.vkey);
    expect((await verifyNote(cosigned, [verifier])).verified).toEqual([verifier]);

    const next = await submit(
      witness,
      10,
      await log.consistency(10, 20),
      await log.checkpoint(20, [SIG_ECDSA]),
    );
    expect(next.status).toBe(200);
    const cosig = Buffer.from(next.body.trim().split(' ')[2]!, 'base64');
    const timestamp = Number(cosig.readBigUInt64BE(4));
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(600);

    // The monitoring endpoint serves it with the log's verified signature and the cosignature.
    const hash = createHash('sha256').update(log.origin).digest('hex');
    const served = await fetch(`${witness.url}/${hash}/checkpoint`);
    expect(served.status).toBe(200);
    const note = await served.text();
    expect(parseCheckpoint(parseNote(note).text).size).toBe(20);
    const logVerifier = await verifierFromVkey(log.ecdsaVkey);
    expect((await verifyNote(note, [logVerifier, verifier])).verified).toEqual([logVerifier, verifier]);
    expect((await fetch(`${witness.url}/${'0'.repeat(64)}/checkpoint`)).status).toBe(404);
  });

  it('answers each refusal with the status C2SP tlog-witness fixes', async () => {
    // 404: an origin it does not follow.
    const stranger = new FixtureLog('ledger.test:8443/ledger/firm_Z');
    await stranger.append(2);
    expect((await submit(witness, 0, [], await stranger.checkpoint())).status).toBe(404);
    // 403: firm B's checkpoint signed only with a key the witness was not given for it (its ECDSA key).
    expect((await submit(witness, 0, [], await other.checkpoint(3, [SIG_ECDSA]))).status).toBe(403);
    // 403: a configured key's signature that fails.
    const forged = (await other.checkpoint()).replace(/\n3\n/, '\n4\n');
    expect((await submit(witness, 0, [], forged)).status).toBe(403);
    // 400: old larger than the checkpoint; a body that is not a request.
    expect((await submit(witness, 21, [], await log.checkpoint(20))).status).toBe(400);
    const garbage = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'hello' });
    expect(garbage.status).toBe(400);
    // 409: old is not its last size; the body says that size.
    const conflict = await submit(witness, 10, await log.consistency(10, 20), await log.checkpoint(20));
    expect(conflict).toEqual({ status: 409, type: 'text/x.tlog.size', body: '20\n' });
    // 422: a proof that does not verify, and the same size with another root.
    await log.append(5);
    const proof = await log.consistency(20, 25);
    proof[proof.length - 1]![5]! ^= 1;
    expect((await submit(witness, 20, proof, await log.checkpoint(25))).status).toBe(422);
    const rewritten = log.sameKeys();
    await rewritten.append(20, 'another history');
    expect((await submit(witness, 20, [], await rewritten.checkpoint())).status).toBe(422);
    expect(readdirSync(join(stateDir, 'refused')).length).toBe(2);
    // Not the add-checkpoint method, not a path it serves.
    expect((await fetch(`${witness.url}/add-checkpoint`)).status).toBe(405);
    expect((await fetch(`${witness.url}/nothing`)).status).toBe(404);
  });

  it('keeps its size and key across a restart and after kill -9; a second process on the folder is refused', async () => {
    const second = run(['--listen', '127.0.0.1:0', '--state', stateDir, ...logArgs]);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain('in use by witness process');

    const vkey = witness.vkey;
    await stop(witness);
    witness = await startWitness(stateDir, logArgs);
    expect(witness.vkey).toBe(vkey);
    expect(await submit(witness, 0, [], await log.checkpoint(25))).toMatchObject({
      status: 409,
      body: '20\n',
    });

    await stop(witness, 'SIGKILL'); // leaves a stale lock behind
    witness = await startWitness(stateDir, logArgs, 'witness.test/w1');
    expect(witness.vkey).toBe(vkey);
    expect((await submit(witness, 20, await log.consistency(20, 25), await log.checkpoint(25))).status).toBe(
      200,
    );
    expect(await submit(witness, 0, [], await log.checkpoint(25))).toMatchObject({
      status: 409,
      body: '25\n',
    });

    // Refused (by the lock while the witness runs, by the name otherwise): it never serves.
    const renamed = run([
      '--listen',
      '127.0.0.1:0',
      '--state',
      stateDir,
      '--name',
      'someone.else/w9',
      ...logArgs,
    ]);
    expect(await renamed.exited).toBe(1);
  });

  it('never cosigns two inconsistent checkpoints for one origin under concurrent submissions', async () => {
    const verifier = await verifierFromVkey(witness.vkey);
    for (let round = 0; round < 8; round += 1) {
      const from = log.size;
      const a = log.fork();
      const b = log.fork();
      await a.append(3 + round, `fork a ${round}`);
      await b.append(3 + round, `fork b ${round}`);
      const bodies = [
        [from, await a.consistency(from), await a.checkpoint()],
        [from, await b.consistency(from), await b.checkpoint()],
      ] as const;
      const answers = await Promise.all(
        [...bodies, ...bodies].map(([old, proof, cp]) => submit(witness, old, [...proof], cp)),
      );
      const cosigned = answers
        .map((r, i) => ({ r, cp: bodies[i % 2]![2] }))
        .filter(({ r }) => r.status === 200);
      const roots = new Set(cosigned.map(({ cp }) => parseCheckpoint(parseNote(cp).text).root.toString()));
      expect(roots.size).toBe(1); // only one of the two histories is ever cosigned
      for (const { r, cp } of cosigned) {
        expect((await verifyNote(`${parseNote(cp).text}\n${r.body}`, [verifier])).verified).toHaveLength(1);
      }
      for (const r of answers) expect([200, 409, 422]).toContain(r.status);
      // Follow the history the witness chose, so the next round starts from it.
      const winner = cosigned[0]!.cp === bodies[0][2] ? a : b;
      for (const [key, data] of winner.tiles.tiles) log.tiles.tiles.set(key, data);
      log.size = winner.size;
    }
  });
});
