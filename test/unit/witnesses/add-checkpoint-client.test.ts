import { generateKeyPairSync, sign } from 'node:crypto';
import { formatCheckpoint } from '../../../shared/domain/tlog/checkpoint.js';
import { cosignatureMessage, cosignatureSignature } from '../../../shared/domain/tlog/cosignature.js';
import { emptyRoot } from '../../../shared/domain/tlog/hash.js';
import {
  cosignatureKeyId,
  ed25519KeyId,
  formatNote,
  formatVkey,
  SIG_COSIGNATURE_V1,
  SIG_ED25519,
  verifierFromVkey,
  verifyNote,
} from '../../../shared/domain/tlog/note.js';
import {
  addCheckpointBody,
  classifyAnswer,
  retryDelaySeconds,
  verifiedCosignature,
} from '../../../shared/domain/witnesses/add-checkpoint-client.js';
import {
  parsePlatformWitnesses,
  PlatformWitnessesFormatError,
} from '../../../shared/domain/witnesses/platform-witnesses.js';
import { parseWitnessVkey, WitnessKeyError } from '../../../shared/domain/witnesses/witness-vkey.js';

function witnessKey(name: string) {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
  const vkey = formatVkey(name, SIG_COSIGNATURE_V1, raw);
  const cosign = (text: string, timestamp: number) => {
    const signature = cosignatureSignature(
      timestamp,
      new Uint8Array(sign(null, cosignatureMessage(text, timestamp), privateKey)),
    );
    return formatNote(text, [{ name, keyId: cosignatureKeyId(name, raw), signature }]).slice(text.length + 1);
  };
  return { vkey, raw, cosign };
}

const text = formatCheckpoint({
  origin: 'ledger.test/ledger/firm_1',
  size: 3,
  root: emptyRoot(),
  extensions: [],
});

describe('witness vkeys', () => {
  it('accepts a cosignature/v1 vkey and names its key ID', () => {
    const { vkey, raw } = witnessKey('witness.test/w1');
    expect(parseWitnessVkey(vkey)).toEqual({
      name: 'witness.test/w1',
      keyId: Buffer.from(cosignatureKeyId('witness.test/w1', raw)).toString('hex'),
      vkey,
    });
  });

  it('refuses malformed vkeys, a wrong key ID and other signature types', () => {
    const { vkey, raw } = witnessKey('witness.test/w1');
    const [name, id, key] = vkey.split('+');
    const otherId = id === '00000000' ? '00000001' : '00000000';
    const logVkey = formatVkey('log.test', SIG_ED25519, raw);
    expect(Buffer.from(ed25519KeyId('log.test', raw)).length).toBe(4);
    for (const bad of [
      '',
      'witness',
      `${name}+${otherId}+${key}`,
      `${name}+${id}+!!!`,
      logVkey,
      'x'.repeat(400),
    ])
      expect(() => parseWitnessVkey(bad)).toThrow(WitnessKeyError);
    expect(() => parseWitnessVkey(logVkey)).toThrow(/type 0x01.*0x04/);
  });

  it('parses PLATFORM_WITNESSES entries separated by commas or newlines', () => {
    expect(parsePlatformWitnesses('')).toEqual([]);
    expect(parsePlatformWitnesses(' a+1+x https://w.example/a ,\n b+2+y  https://w.example/b\n')).toEqual([
      { vkey: 'a+1+x', url: 'https://w.example/a' },
      { vkey: 'b+2+y', url: 'https://w.example/b' },
    ]);
    expect(() => parsePlatformWitnesses('a+1+x')).toThrow(PlatformWitnessesFormatError);
    expect(() => parsePlatformWitnesses('a+1+x https://w.example extra')).toThrow(
      PlatformWitnessesFormatError,
    );
  });
});

describe('add-checkpoint, the client side', () => {
  it('writes old, the proof lines, a blank line, then the signed note', () => {
    const hash = new Uint8Array(32).fill(7);
    const body = addCheckpointBody(2, [hash, hash], 'note\n\n— x abc\n');
    expect(body).toBe(
      `old 2\n${Buffer.from(hash).toString('base64')}\n${Buffer.from(hash).toString('base64')}\n\nnote\n\n— x abc\n`,
    );
    expect(addCheckpointBody(0, [], 'n\n')).toBe('old 0\n\nn\n');
  });

  it('classifies the statuses of tlog-witness', () => {
    expect(classifyAnswer(200, 'text/plain', '— w abc\n')).toEqual({ kind: 'cosigned', body: '— w abc\n' });
    expect(classifyAnswer(409, 'text/x.tlog.size', '12\n')).toEqual({ kind: 'size', size: 12 });
    expect(classifyAnswer(409, 'text/x.tlog.size; charset=utf-8', '0\n')).toEqual({ kind: 'size', size: 0 });
    expect(classifyAnswer(409, 'text/plain', '12\n').kind).toBe('rejected');
    expect(classifyAnswer(409, 'text/x.tlog.size', 'twelve\n').kind).toBe('rejected');
    expect(classifyAnswer(422, 'text/plain', 'bad proof\nmore')).toEqual({
      kind: 'refused',
      reason: 'bad proof',
    });
    for (const status of [500, 502, 503, 429])
      expect(classifyAnswer(status, '', '').kind).toBe('unavailable');
    for (const status of [400, 403, 404, 413, 301])
      expect(classifyAnswer(status, '', '').kind).toBe('rejected');
  });

  it('keeps only a cosignature that verifies with the witness vkey', async () => {
    const witness = witnessKey('witness.test/w1');
    const other = witnessKey('witness.test/w1');
    const verifier = await verifierFromVkey(witness.vkey);
    const answer = witness.cosign(text, 1_700_000_000);
    const kept = await verifiedCosignature(text, answer, verifier);
    expect(kept).toEqual({ line: answer.trimEnd(), timestamp: 1_700_000_000 });
    // The line kept verifies as a signed-note signature of the checkpoint.
    const { verified } = await verifyNote(`${text}\n${kept!.line}\n`, [verifier]);
    expect(verified).toHaveLength(1);
    // Another checkpoint's cosignature, another key under the same name, garbage: nothing kept.
    const otherText = formatCheckpoint({
      origin: 'ledger.test/ledger/firm_1',
      size: 4,
      root: emptyRoot(),
      extensions: [],
    });
    expect(await verifiedCosignature(text, witness.cosign(otherText, 1), verifier)).toBeUndefined();
    expect(await verifiedCosignature(text, other.cosign(text, 1), verifier)).toBeUndefined();
    expect(await verifiedCosignature(text, 'not a signature line\n', verifier)).toBeUndefined();
    expect(await verifiedCosignature(text, '', verifier)).toBeUndefined();
    // Among other lines, the witness's own is found.
    expect(await verifiedCosignature(text, `${other.cosign(text, 1)}${answer}`, verifier)).toEqual(kept);
  });

  it('backs off exponentially up to a cap', () => {
    expect([1, 2, 3, 4, 10, 20].map((n) => retryDelaySeconds(n, 5, 900))).toEqual([5, 10, 20, 40, 900, 900]);
  });
});
