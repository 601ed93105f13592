import { createPrivateKey, generateKeyPairSync, sign, createHash } from 'node:crypto';
import { cosignatureMessage, cosignatureSignature } from '../../../shared/domain/tlog/cosignature.js';
import {
  cosignatureKeyId,
  ecdsaKeyId,
  ed25519KeyId,
  formatNote,
  formatVkey,
  NoteFormatError,
  NoteVerificationError,
  parseNote,
  parseVkey,
  SIG_COSIGNATURE_V1,
  SIG_ECDSA,
  SIG_ED25519,
  verifierFromVkey,
  verifyNote,
  VkeyFormatError,
  type NoteVerifier,
} from '../../../shared/domain/tlog/note.js';

/**
 * C2SP signed-note and vkeys: the examples of the C2SP spec and golang.org/x/mod/sumdb/note's test vectors as
 * facts; ECDSA P-256 (0x02) and cosignature/v1 (0x04) with keys generated here and signed by node:crypto, as
 * KMS and the witness sign.
 */

// C2SP signed-note §"Verifier keys", example.
const C2SP_VKEY = 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k';
const C2SP_NOTE =
  'This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n';

// golang.org/x/mod/sumdb/note note_test.go (TestOpen, TestNewSigner).
const PETER_VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const PETER_SKEY_SEED = 'gQoUAtUUbI2E8kQzMPVAgOv5juF9nHT2JS/F1ccoMXM='; // the skey's bytes after its type byte 0x01
const ENOCH_VKEY = 'EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const PETER_SIG =
  '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n';
const ENOCH_SIG =
  '\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('vkeys', () => {
  it('parses the C2SP and Go examples and recomputes their key IDs', () => {
    const c2sp = parseVkey(C2SP_VKEY);
    expect(c2sp.name).toBe('example.com/foo');
    expect(hex(c2sp.keyId)).toBe('530d903a');
    expect(c2sp.type).toBe(SIG_ED25519);
    expect(hex(ed25519KeyId('example.com/foo', c2sp.key))).toBe('530d903a');
    expect(formatVkey('example.com/foo', SIG_ED25519, c2sp.key)).toBe(C2SP_VKEY);
    const peter = parseVkey(PETER_VKEY);
    expect(hex(peter.keyId)).toBe('c74f20a3');
    expect(formatVkey('PeterNeumann', SIG_ED25519, peter.key)).toBe(PETER_VKEY);
  });

  it('refuses every substring and every one-byte change of a vkey (as Go’s TestNewVerifier)', () => {
    const b = Buffer.from(PETER_VKEY);
    for (let i = 0; i <= b.length; i += 1) {
      for (let j = i + 1; j <= b.length; j += 1) {
        if (i === 0 && j === b.length) continue;
        expect(() => parseVkey(b.subarray(i, j).toString())).toThrow(VkeyFormatError);
      }
    }
    for (let i = 0; i < b.length; i += 1) {
      const mangled = Buffer.from(b);
      mangled[i]! += 1;
      expect(() => parseVkey(mangled.toString())).toThrow(VkeyFormatError);
    }
    // Go's: a wrong-length key and an unknown algorithm, each with a matching key hash.
    expect(() =>
      parseVkey('PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=='),
    ).toThrow(VkeyFormatError);
    expect(() => parseVkey('PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toThrow(
      VkeyFormatError,
    );
  });

  it('derives the three key IDs as C2SP specifies', () => {
    const key = new Uint8Array(32).fill(9);
    const id = (type: number) =>
      createHash('sha256')
        .update(Buffer.concat([Buffer.from('w.example/1\n'), Buffer.of(type), key]))
        .digest()
        .subarray(0, 4)
        .toString('hex');
    expect(hex(ed25519KeyId('w.example/1', key))).toBe(id(0x01));
    expect(hex(cosignatureKeyId('w.example/1', key))).toBe(id(0x04));
    const spki = new Uint8Array(91).fill(3);
    expect(hex(ecdsaKeyId(spki))).toBe(
      createHash('sha256').update(spki).digest().subarray(0, 4).toString('hex'),
    );
  });
});

describe('signed notes', () => {
  it('verifies the C2SP example note with its vkey', async () => {
    const v = await verifierFromVkey(C2SP_VKEY);
    const { text, verified } = await verifyNote(C2SP_NOTE, [v]);
    expect(text).toBe('This is an example message.\n');
    expect(verified).toEqual([v]);
  });

  it('verifies Go’s note: Peter’s signature verifies, Enoch’s (unknown key) is ignored', async () => {
    const peter = await verifierFromVkey(PETER_VKEY);
    const enoch = await verifierFromVkey(ENOCH_VKEY);
    const note = `${TEXT}\n${PETER_SIG}${ENOCH_SIG}`;
    const one = await verifyNote(note, [peter]);
    expect(one.text).toBe(TEXT);
    expect(one.verified).toEqual([peter]);
    expect(one.signatures.map((s) => s.name)).toEqual(['PeterNeumann', 'EnochRoot']);
    expect((await verifyNote(note, [enoch, peter])).verified).toEqual([peter, enoch]);
    await expect(verifyNote(`${TEXT}\n${ENOCH_SIG}`, [peter])).rejects.toThrow(NoteVerificationError);
  });

  it('formats exactly Go’s signed note from Peter’s private key (Ed25519 is deterministic)', async () => {
    const seed = Buffer.from(PETER_SKEY_SEED, 'base64');
    const key = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const signature = new Uint8Array(sign(null, Buffer.from(TEXT), key));
    const keyId = parseVkey(PETER_VKEY).keyId;
    expect(formatNote(TEXT, [{ name: 'PeterNeumann', keyId, signature }])).toBe(`${TEXT}\n${PETER_SIG}`);
  });

  it('rejects a note whose known signature fails', async () => {
    const peter = await verifierFromVkey(PETER_VKEY);
    const tampered = `${TEXT.replace('problem', 'Problem')}\n${PETER_SIG}`;
    await expect(verifyNote(tampered, [peter])).rejects.toThrow(NoteVerificationError);
  });

  it('ignores a signature whose name matches a known key but whose key ID does not', async () => {
    const peter = await verifierFromVkey(PETER_VKEY);
    const stranger: NoteVerifier = {
      name: 'PeterNeumann',
      keyId: Uint8Array.of(1, 2, 3, 4),
      verify: async () => false,
    };
    expect((await verifyNote(`${TEXT}\n${PETER_SIG}`, [stranger, peter])).verified).toEqual([peter]);
  });

  it.each([
    ['no blank line', `${TEXT}${PETER_SIG}`],
    ['no signature', `${TEXT}\n`],
    ['no final newline', `${TEXT}\n${PETER_SIG}`.slice(0, -1)],
    ['a hyphen instead of an em dash', `${TEXT}\n${PETER_SIG.replace('\u2014', '-')}`],
    ['a name with a plus', `${TEXT}\n${PETER_SIG.replace('PeterNeumann', 'Peter+Neumann')}`],
    ['bad base64', `${TEXT}\n\u2014 PeterNeumann x08go/ZJ!\n`],
    ['a signature under 5 bytes', `${TEXT}\n\u2014 PeterNeumann AAAAAA==\n`],
    ['a control character', `If you\tthink\n\n${PETER_SIG}`],
    ['a lone surrogate', `If you \ud800\n\n${PETER_SIG}`],
    ['101 signatures', `${TEXT}\n${PETER_SIG.repeat(101)}`],
  ])('refuses a malformed note: %s', (_what, note) => {
    expect(() => parseNote(note)).toThrow(NoteFormatError);
  });

  it('accepts a note with blank lines in its text (the last blank line separates)', () => {
    const parsed = parseNote(`a\n\nb\n\n${PETER_SIG}`);
    expect(parsed.text).toBe('a\n\nb\n');
  });

  it('formatNote refuses a text without its final newline or an invalid name', () => {
    const sig = { name: 'n', keyId: new Uint8Array(4), signature: new Uint8Array(4) };
    expect(() => formatNote('x', [sig])).toThrow(NoteFormatError);
    expect(() => formatNote('x\n', [{ ...sig, name: 'a b' }])).toThrow(NoteFormatError);
    expect(() => formatNote('x\n', [])).toThrow(NoteFormatError);
  });
});

describe('ECDSA P-256 signatures (type 0x02), as KMS ECDSA_SHA_256 makes them', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const spki = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }));
  const text = 'ledger.example/ledger/firm_1\n3\nrtSQaiB1r7Os0kCr1tV+0SZkIGLBnpNOWJcYyIh1Fg0=\n';

  it('verifies a DER signature over SHA-256 of the text; key ID = SHA-256(SPKI)[:4]', async () => {
    const vkey = formatVkey('ledger.example/ledger/firm_1', SIG_ECDSA, spki);
    const parsed = parseVkey(vkey);
    expect(hex(parsed.keyId)).toBe(createHash('sha256').update(spki).digest().subarray(0, 4).toString('hex'));
    expect(hex(parsed.key)).toBe(hex(spki));
    const der = new Uint8Array(sign('sha256', Buffer.from(text), privateKey));
    const note = formatNote(text, [
      { name: 'ledger.example/ledger/firm_1', keyId: parsed.keyId, signature: der },
    ]);
    const v = await verifierFromVkey(vkey);
    expect((await verifyNote(note, [v])).verified).toEqual([v]);
    expect(await v.verify(text.replace('3', '4'), der)).toBe(false);
    expect(await v.verify(text, der.subarray(0, der.length - 1))).toBe(false); // not DER any more
  });

  it('refuses a 0x02 vkey that is not a P-256 SPKI key', async () => {
    const { publicKey: p384 } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const vkey = formatVkey('x', SIG_ECDSA, new Uint8Array(p384.export({ format: 'der', type: 'spki' })));
    await expect(verifierFromVkey(vkey)).rejects.toThrow(VkeyFormatError);
  });
});

describe('cosignature/v1 (type 0x04)', () => {
  // C2SP tlog-cosignature's example: its checkpoint, its message at time 1679315147, its cosignature line.
  const CHECKPOINT = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
  const EXAMPLE_SIG =
    'jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==';

  it('builds the message of the C2SP example and reads its timestamp', () => {
    expect(Buffer.from(cosignatureMessage(CHECKPOINT, 1679315147)).toString()).toBe(
      `cosignature/v1\ntime 1679315147\n${CHECKPOINT}`,
    );
    const bytes = Buffer.from(EXAMPLE_SIG, 'base64');
    expect(bytes).toHaveLength(4 + 8 + 64);
    expect(bytes.readBigUInt64BE(4)).toBe(1679315147n);
  });

  it('verifies a cosignature made with a generated witness key, and nothing else', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' })).slice(-32);
    const vkey = formatVkey('witness.example/w1', SIG_COSIGNATURE_V1, raw);
    const t = 1_700_000_000;
    const sig = new Uint8Array(sign(null, cosignatureMessage(CHECKPOINT, t), privateKey));
    const line = { name: 'witness.example/w1', keyId: cosignatureKeyId('witness.example/w1', raw) };
    const note = formatNote(CHECKPOINT, [{ ...line, signature: cosignatureSignature(t, sig) }]);
    const v = await verifierFromVkey(vkey);
    expect((await verifyNote(note, [v])).verified).toEqual([v]);
    // Another timestamp, a plain Ed25519 signature over the text, or the key as a 0x01 vkey: no.
    expect(await v.verify(CHECKPOINT, cosignatureSignature(t + 1, sig))).toBe(false);
    expect(await v.verify(CHECKPOINT, new Uint8Array(sign(null, Buffer.from(CHECKPOINT), privateKey)))).toBe(
      false,
    );
    const asEd25519 = await verifierFromVkey(formatVkey('witness.example/w1', SIG_ED25519, raw));
    await expect(verifyNote(note, [asEd25519])).rejects.toThrow(NoteVerificationError);
    expect(() => cosignatureSignature(t, sig.subarray(1))).toThrow(RangeError);
    expect(() => cosignatureMessage(CHECKPOINT, -1)).toThrow(RangeError);
  });
});
