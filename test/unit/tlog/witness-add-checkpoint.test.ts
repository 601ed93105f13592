import { formatCheckpoint } from '../../../shared/domain/tlog/checkpoint.js';
import { emptyRoot } from '../../../shared/domain/tlog/hash.js';
import { generateKeyPairSync } from 'node:crypto';
import {
  formatNote,
  formatVkey,
  SIG_COSIGNATURE_V1,
  SIG_ECDSA,
  SIG_ED25519,
} from '../../../shared/domain/tlog/note.js';
import {
  AddCheckpointRequestError,
  decideAddCheckpoint,
  parseAddCheckpointRequest,
  type CosignedState,
} from '../../../shared/witness/add-checkpoint.js';
import {
  loadLogKeys,
  LogKeyConfigError,
  parseLogKeyFile,
  type LogKeys,
} from '../../../shared/witness/log-keys.js';
import { addCheckpointBody, FixtureLog } from './log-fixture.js';

/** The witness's add-checkpoint decision (C2SP tlog-witness), without HTTP or files. */

describe('parseAddCheckpointRequest', () => {
  // The example request body of C2SP tlog-witness.
  const EXAMPLE = [
    'old 20852014',
    'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=',
    'jrJZDmY8Y7SyJE0MWLpLozkIVMSMZcD5kvuKxPC3swk=',
    '5+pKlUdi2LeF/BcMHBn+Ku6yhPGNCswZZD1X/6QgPd8=',
    '/6WVhPs2CwSsb5rYBH5cjHV/wSmA79abXAwhXw3Kj/0=',
    '',
    'example.com/behind-the-sofa',
    '20852163',
    'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=',
    '',
    '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=',
    '',
  ].join('\n');

  it('parses the C2SP example', () => {
    const r = parseAddCheckpointRequest(EXAMPLE);
    expect(r.oldSize).toBe(20852014);
    expect(r.proof).toHaveLength(4);
    expect(r.note.startsWith('example.com/behind-the-sofa\n20852163\n')).toBe(true);
    expect(parseAddCheckpointRequest('old 0\n\nx\n').proof).toEqual([]);
  });

  it.each([
    ['no old line', EXAMPLE.replace('old 20852014\n', '')],
    ['a leading zero', EXAMPLE.replace('old 20852014', 'old 020852014')],
    ['old without a space', EXAMPLE.replace('old 20852014', 'old20852014')],
    ['a bad proof line', EXAMPLE.replace('PlRNCrwH', 'PlRNCrw')],
    ['64 proof lines', `old 1\n${'PlRNCrwHpqhGrupue0L7gxbjbMiKA9temvuZZDDpkaw=\n'.repeat(64)}\nx\n`],
    ['no blank line', 'old 1\n'],
  ])('refuses %s', (_what, body) => {
    expect(() => parseAddCheckpointRequest(body)).toThrow(AddCheckpointRequestError);
  });
});

describe('log keys', () => {
  it('groups several vkeys under one origin, by key name or an explicit origin', async () => {
    const log = new FixtureLog('ledger.example/ledger/firm_1');
    const logs = await loadLogKeys([log.ecdsaVkey, log.ed25519Vkey, `other.example/log ${log.ed25519Vkey}`]);
    expect([...logs.keys()]).toEqual(['ledger.example/ledger/firm_1', 'other.example/log']);
    expect(logs.get('ledger.example/ledger/firm_1')!.map((v) => v.type)).toEqual([SIG_ECDSA, SIG_ED25519]);
    expect(parseLogKeyFile(`# logs\n${log.ecdsaVkey}\n\n  ${log.ed25519Vkey}  # ed\n`)).toEqual([
      log.ecdsaVkey,
      log.ed25519Vkey,
    ]);
  });

  it('refuses no key, a malformed vkey, a cosignature key as a log key', async () => {
    await expect(loadLogKeys([])).rejects.toThrow(LogKeyConfigError);
    await expect(loadLogKeys(['nope'])).rejects.toThrow(LogKeyConfigError);
    await expect(loadLogKeys(['a b c'])).rejects.toThrow(LogKeyConfigError);
    const raw = new Uint8Array(
      generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }),
    ).slice(-32);
    await expect(loadLogKeys([formatVkey('w.example', SIG_COSIGNATURE_V1, raw)])).rejects.toThrow(
      /0x01 or 0x02/,
    );
  });
});

describe('decideAddCheckpoint', () => {
  let log: FixtureLog;
  let logs: LogKeys;
  let state: CosignedState | undefined;
  const lastCosigned = async () => state;
  const decide = async (oldSize: number, proof: Uint8Array[], note: string) =>
    decideAddCheckpoint(
      parseAddCheckpointRequest(addCheckpointBody(oldSize, proof, note)),
      logs,
      lastCosigned,
    );
  const accept = async (oldSize: number, proof: Uint8Array[], note: string) => {
    const outcome = await decide(oldSize, proof, note);
    if (outcome.status !== 200) throw new Error(`expected 200, got ${JSON.stringify(outcome)}`);
    state = { origin: log.origin, size: outcome.checkpoint.size, root: outcome.checkpoint.root, note };
    return outcome;
  };

  beforeEach(async () => {
    log = new FixtureLog('ledger.example/ledger/firm_1');
    logs = await loadLogKeys([log.ecdsaVkey, log.ed25519Vkey]);
    state = undefined;
    await log.append(10);
  });

  it('cosigns the first checkpoint it sees (old 0, no proof), then each consistent successor', async () => {
    const first = await accept(0, [], await log.checkpoint());
    expect(first.checkpoint.size).toBe(10);
    expect(first.logSignatures.map((s) => s.name)).toEqual([log.origin, log.origin]);
    await log.append(290);
    await accept(10, await log.consistency(10), await log.checkpoint());
    await accept(300, [], await log.checkpoint()); // the same checkpoint again
    expect(state!.size).toBe(300);
  });

  it('accepts a checkpoint signed by any one configured key of its origin', async () => {
    await accept(0, [], await log.checkpoint(10, [SIG_ECDSA]));
    await log.append(1);
    await accept(10, await log.consistency(10), await log.checkpoint(11, [SIG_ED25519]));
  });

  it('404: an origin it does not follow', async () => {
    const other = new FixtureLog('ledger.example/ledger/firm_2');
    await other.append(3);
    expect((await decide(0, [], await other.checkpoint())).status).toBe(404);
  });

  it('403: no signature of a configured key, or a configured key’s signature failing', async () => {
    const impostor = new FixtureLog(log.origin); // same origin, other keys
    await impostor.append(10);
    expect((await decide(0, [], await impostor.checkpoint())).status).toBe(403);
    const text = await log.text();
    const forged = formatNote(text.replace('\n10\n', '\n11\n'), [log.signature(text, SIG_ED25519)]);
    expect((await decide(0, [], forged)).status).toBe(403);
  });

  it('400: old size larger than the checkpoint; a malformed checkpoint', async () => {
    expect((await decide(11, [], await log.checkpoint())).status).toBe(400);
    expect((await decide(0, [], 'not a note\n')).status).toBe(400);
  });

  it('409 with its last size when old is not that size', async () => {
    await accept(0, [], await log.checkpoint());
    await log.append(5);
    const outcome = await decide(0, [], await log.checkpoint());
    expect(outcome).toMatchObject({ status: 409, size: 10 });
    expect(await decide(12, [], await log.checkpoint())).toMatchObject({ status: 409, size: 10 });
    state = undefined;
    expect(await decide(10, await log.consistency(10), await log.checkpoint())).toMatchObject({
      status: 409,
      size: 0,
    });
  });

  it('422: a history rewritten by the log’s own keys, equal sizes with another root', async () => {
    await accept(0, [], await log.checkpoint());
    const rewritten = log.sameKeys();
    await rewritten.append(15, 'rewritten from the start');
    // Valid signatures, a proof valid within the rewritten tree: not consistent with what was cosigned.
    expect((await decide(10, await rewritten.consistency(10), await rewritten.checkpoint())).status).toBe(
      422,
    );
    expect((await decide(10, [], await rewritten.checkpoint(10))).status).toBe(422);
  });

  it('422 on a split view: two forks after the same prefix, the second one seen is refused', async () => {
    await accept(0, [], await log.checkpoint());
    const fork = log.fork();
    await fork.append(5, 'the history shown to someone else');
    await log.append(5);
    await accept(10, await fork.consistency(10), await fork.checkpoint());
    expect((await decide(15, [], await log.checkpoint())).status).toBe(422);
    expect((await decide(10, await log.consistency(10), await log.checkpoint())).status).toBe(409);
  });

  it('422: a proof with a flipped bit, a proof from 0', async () => {
    await log.append(5);
    expect((await decide(0, await log.consistency(10), await log.checkpoint())).status).toBe(422);
    await accept(0, [], await log.checkpoint(10));
    const proof = await log.consistency(10);
    proof[0]![0]! ^= 1;
    expect((await decide(10, proof, await log.checkpoint())).status).toBe(422);
  });

  it('a checkpoint of size 0 needs the empty root', async () => {
    const signed = (root: Uint8Array) => {
      const text = formatCheckpoint({ origin: log.origin, size: 0, root, extensions: [] });
      return formatNote(text, [log.signature(text, SIG_ED25519)]);
    };
    expect((await decide(0, [], signed(new Uint8Array(32).fill(1)))).status).toBe(422);
    expect((await decide(0, [], signed(emptyRoot()))).status).toBe(200);
  });
});
