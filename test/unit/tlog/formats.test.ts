import {
  checkpointOrigin,
  CheckpointFormatError,
  formatCheckpoint,
  parseCheckpoint,
} from '../../../shared/domain/tlog/checkpoint.js';
import {
  formatHashLines,
  HashLinesFormatError,
  parseHashLines,
} from '../../../shared/domain/tlog/consistency-format.js';
import { decodeBase64 } from '../../../shared/domain/tlog/encoding.js';
import {
  EntryBundleFormatError,
  formatEntryBundle,
  parseEntryBundle,
} from '../../../shared/domain/tlog/entry-bundle.js';
import {
  formatTlogProof,
  parseTlogProof,
  TlogProofFormatError,
} from '../../../shared/domain/tlog/proof-format.js';

/** The text formats: C2SP tlog-checkpoint, tlog-proof (their examples as facts), hash lines, entry bundles. */

const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

describe('checkpoints (C2SP tlog-checkpoint)', () => {
  const EXAMPLE = 'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';

  it('parses and formats the C2SP example', () => {
    const c = parseCheckpoint(EXAMPLE);
    expect(c).toEqual({
      origin: 'example.com/behind-the-sofa',
      size: 20852163,
      root: b64('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I='),
      extensions: [],
    });
    expect(formatCheckpoint(c)).toBe(EXAMPLE);
    const ext = `${EXAMPLE}ext one\next two\n`;
    expect(parseCheckpoint(ext).extensions).toEqual(['ext one', 'ext two']);
    expect(formatCheckpoint(parseCheckpoint(ext))).toBe(ext);
    expect(parseCheckpoint('o\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n').size).toBe(0);
  });

  it.each([
    ['no final newline', EXAMPLE.slice(0, -1)],
    ['two lines', 'example.com/x\n1\n'],
    ['empty origin', '\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['a leading zero', 'o\n01\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['a negative size', 'o\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['a size beyond 2^53', 'o\n9007199254740993\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n'],
    ['a short root', 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2=\n'],
    ['an unpadded root', 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n'],
    ['an empty extension line', `${EXAMPLE}\n`],
  ])('refuses %s', (_what, text) => {
    expect(() => parseCheckpoint(text)).toThrow(CheckpointFormatError);
  });

  it('formats only well-formed checkpoints', () => {
    const root = new Uint8Array(32);
    expect(() => formatCheckpoint({ origin: 'a\nb', size: 1, root, extensions: [] })).toThrow(
      CheckpointFormatError,
    );
    expect(() => formatCheckpoint({ origin: 'a', size: -1, root, extensions: [] })).toThrow(
      CheckpointFormatError,
    );
    expect(() => formatCheckpoint({ origin: 'a', size: 1, root: root.subarray(1), extensions: [] })).toThrow(
      CheckpointFormatError,
    );
    expect(() => formatCheckpoint({ origin: 'a', size: 1, root, extensions: [''] })).toThrow(
      CheckpointFormatError,
    );
  });

  it('names a firm’s origin from PUBLIC_BASE_URL’s host and port', () => {
    expect(checkpointOrigin('https://ledger.example.com', 'firm_01J')).toBe(
      'ledger.example.com/ledger/firm_01J',
    );
    expect(checkpointOrigin('http://localhost:3000/', 'f1')).toBe('localhost:3000/ledger/f1');
    expect(checkpointOrigin('https://Ledger.Example.com:443/api', 'f1')).toBe('ledger.example.com/ledger/f1');
    expect(() => checkpointOrigin('https://x', 'a b')).toThrow(CheckpointFormatError);
    expect(() => checkpointOrigin('https://x', '')).toThrow(CheckpointFormatError);
  });
});

describe('tlog-proof (C2SP c2sp.org/tlog-proof@v1)', () => {
  // The C2SP example, signatures elided as in the spec (the format does not look inside the checkpoint).
  const EXAMPLE = [
    'c2sp.org/tlog-proof@v1',
    'extra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6',
    'index 73894',
    'gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=',
    'B95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=',
    'EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=',
    'RoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=',
    'AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=',
    '',
    'example.com/fancylog',
    '109482',
    'sFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=',
    '',
    '\u2014 example.com/fancylog hI2DJw[...]1roloI=',
    '\u2014 witness1.example mJirIklj[...]qY9v2B/5bg==',
    '',
  ].join('\n');

  it('parses the C2SP example and writes it back byte for byte', () => {
    const p = parseTlogProof(EXAMPLE);
    expect(p.index).toBe(73894);
    expect(p.proof).toHaveLength(5);
    expect(Buffer.from(p.extra!).toString()).toBe('age-v1.2.1-darwin-arm64.tar.gz');
    expect(p.checkpoint.startsWith('example.com/fancylog\n109482\n')).toBe(true);
    expect(p.checkpoint.endsWith('qY9v2B/5bg==\n')).toBe(true);
    expect(formatTlogProof(p)).toBe(EXAMPLE);
  });

  it('round-trips without extra and with an empty proof (a tree of one leaf)', () => {
    const checkpoint = 'o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n\u2014 o AAAAAAA=\n';
    const text = formatTlogProof({ index: 0, proof: [], checkpoint });
    expect(text).toBe(`c2sp.org/tlog-proof@v1\nindex 0\n\n${checkpoint}`);
    expect(parseTlogProof(text)).toEqual({ index: 0, proof: [], checkpoint });
  });

  it.each([
    ['a wrong header', EXAMPLE.replace('@v1', '@v2')],
    ['no index', EXAMPLE.replace('index 73894\n', '')],
    ['a leading zero index', EXAMPLE.replace('index 73894', 'index 073894')],
    ['a bad proof line', EXAMPLE.replace('B95lDa8R', 'B95lDa8')],
    ['bad extra', EXAMPLE.replace('extra YWdl', 'extra !Wdl')],
    ['no checkpoint', 'c2sp.org/tlog-proof@v1\nindex 0\n\n'],
    ['no blank line', 'c2sp.org/tlog-proof@v1\nindex 0\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parseTlogProof(text)).toThrow(TlogProofFormatError);
  });
});

describe('hash lines (consistency proofs, witness requests)', () => {
  it('round-trips, and refuses what is not one base64 SHA-256 hash a line', () => {
    const hashes = [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2)];
    const text = formatHashLines(hashes);
    expect(text).toBe(
      `${Buffer.from(hashes[0]!).toString('base64')}\n${Buffer.from(hashes[1]!).toString('base64')}\n`,
    );
    expect(parseHashLines(text)).toEqual(hashes);
    expect(parseHashLines('')).toEqual([]);
    expect(() => parseHashLines(text.slice(0, -1))).toThrow(HashLinesFormatError);
    expect(() => parseHashLines('AAAA\n')).toThrow(HashLinesFormatError);
    expect(() => parseHashLines(`${text}\n`)).toThrow(HashLinesFormatError);
    expect(() => parseHashLines(formatHashLines(Array(64).fill(hashes[0])))).toThrow(HashLinesFormatError);
    expect(() => formatHashLines([new Uint8Array(31)])).toThrow(HashLinesFormatError);
  });

  it('decodes only canonical padded base64', () => {
    expect(decodeBase64('AQ==')).toEqual(Uint8Array.of(1));
    expect(decodeBase64('AR==')).toBeUndefined();
    expect(decodeBase64('AQ')).toBeUndefined();
    expect(decodeBase64('A Q==')).toBeUndefined();
  });
});

describe('entry bundles (C2SP tlog-tiles)', () => {
  it('writes each entry with a big-endian uint16 length and reads it back', () => {
    const entries = [new Uint8Array(32).fill(0xab), new Uint8Array(0), new Uint8Array(300).fill(1)];
    const bundle = formatEntryBundle(entries);
    expect(Array.from(bundle.subarray(0, 3))).toEqual([0x00, 0x20, 0xab]);
    expect(Array.from(bundle.subarray(34, 36))).toEqual([0, 0]);
    expect(Array.from(bundle.subarray(36, 38))).toEqual([0x01, 0x2c]);
    expect(parseEntryBundle(bundle)).toEqual(entries);
    expect(() => parseEntryBundle(bundle.subarray(0, bundle.length - 1))).toThrow(EntryBundleFormatError);
    expect(() => parseEntryBundle(Uint8Array.of(0))).toThrow(EntryBundleFormatError);
    expect(() => formatEntryBundle([new Uint8Array(65_536)])).toThrow(EntryBundleFormatError);
  });
});
