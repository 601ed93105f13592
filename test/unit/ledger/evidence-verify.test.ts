import { createPublicKey, sign, verify } from 'node:crypto';
import { countWithinBudget, recordBytes } from '../../../shared/ledger/evidence-bundle.js';
import { nodeEvidenceCrypto } from '../../../shared/ledger/evidence-crypto-node.js';
import { derToP1363, webEvidenceCrypto } from '../../../shared/ledger/evidence-crypto-web.js';
import { verifyEvidenceBundle, type EvidenceCrypto } from '../../../shared/ledger/evidence-verify.js';
import { endorsementMessage, endorsementText } from '../../../shared/ledger/key-history.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';
import {
  bundleOf,
  chainOf,
  EPOCH,
  historyOf,
  keyEntry,
  resign,
  testKey,
} from '../../support/evidence-fixtures.js';

const first = testKey();
const second = testKey();
const stranger = testKey();
const ROTATION = '2026-01-01T00:05:00.000Z'; // records 1-4 before it (minute i), 5-8 from it on

let chain: LedgerRecord[];
const rotated = () =>
  historyOf(keyEntry(first, EPOCH, ROTATION), keyEntry(second, ROTATION, null, null, first));

beforeAll(async () => {
  chain = await chainOf('firm_a', 8, (i) => (i < 5 ? first : second));
});

const cryptos: [string, EvidenceCrypto][] = [
  ['node', nodeEvidenceCrypto],
  ['WebCrypto', webEvidenceCrypto()],
];

describe.each(cryptos)('evidence verifier (%s crypto)', (_name, crypto) => {
  const codes = async (bundle: unknown) =>
    (await verifyEvidenceBundle(bundle, crypto)).failures.map((f) => [f.code, f.sequenceNumber]);

  it('accepts a whole chain across a rotation, and a range anchored by its predecessor', async () => {
    const whole = await verifyEvidenceBundle(bundleOf(chain, rotated()), crypto);
    expect(whole.failures).toEqual([]);
    expect(whole.valid).toBe(true);
    expect(whole.records.map((r) => r.sequenceNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(whole.covered).toEqual({ fromSequence: 1, toSequence: 8 });
    const range = bundleOf(chain.slice(3, 6), rotated(), {
      predecessor: chain[2]!,
      headSequenceNumber: 8,
      range: { fromSequence: 4, toSequence: null },
      nextFromSequence: 7,
    });
    const verdict = await verifyEvidenceBundle(range, crypto);
    expect(verdict.failures).toEqual([]);
    expect(verdict.covered).toEqual({ fromSequence: 4, toSequence: 6 });
    expect(verdict.predecessor).toEqual({ sequenceNumber: 3, id: chain[2]!.id, valid: true, problems: [] });
  });

  it('names a changed payload, a broken link, a forged signature and another firm', async () => {
    const records = chain.map((r) => ({ ...r }));
    records[1] = { ...records[1]!, actorName: 'Someone Else' };
    records[3] = { ...records[3]!, previousHash: 'f'.repeat(64) };
    records[5] = resign(records[5]!, stranger);
    records[6] = { ...records[6]!, firmId: 'firm_b' };
    expect(await codes(bundleOf(records, rotated()))).toEqual([
      ['RECORD_HASH_MISMATCH', 2],
      ['CHAIN_HASH_MISMATCH', 4],
      ['BROKEN_LINK', 4],
      ['UNTRUSTED_KEY', 6],
      ['RECORD_HASH_MISMATCH', 7],
      ['FIRM_MISMATCH', 7],
    ]);
  });

  it('reports removed records, extra ones and a missing or wrong predecessor', async () => {
    const gap = [...chain.slice(0, 2), ...chain.slice(4)];
    const verdict = await verifyEvidenceBundle(bundleOf(gap, rotated()), crypto);
    expect(verdict.valid).toBe(false);
    expect(verdict.failures.map((f) => [f.code, f.reason, f.sequenceNumber, f.message])).toEqual([
      ['MISSING_RECORD', 'missingRecord', 3, 'records 3 to 4 are missing from the bundle'],
    ]);
    const truncated = bundleOf(chain.slice(0, 6), rotated(), {
      range: { fromSequence: 1, toSequence: 8 },
      headSequenceNumber: 8,
    });
    expect(await codes(truncated)).toEqual([['MISSING_RECORD', 7]]);
    const repeated = bundleOf([...chain.slice(0, 3), chain[1]!], rotated(), {
      range: { fromSequence: 1, toSequence: 3 },
      headSequenceNumber: 3,
    });
    expect(await codes(repeated)).toEqual([['UNEXPECTED_RECORD', 2]]);
    const anchored = { predecessor: null, range: { fromSequence: 4, toSequence: 6 } };
    expect(await codes(bundleOf(chain.slice(3, 6), rotated(), anchored))).toEqual([['MISSING_RECORD', 3]]);
    const wrong = bundleOf(chain.slice(3, 6), rotated(), { ...anchored, predecessor: chain[1]! });
    expect(await codes(wrong)).toEqual([
      ['UNEXPECTED_RECORD', 2],
      ['BROKEN_LINK', 4],
    ]);
  });

  it('rejects a key outside its window and a revoked key, but not records before the revocation', async () => {
    const early = historyOf(keyEntry(first, EPOCH, '2026-01-01T00:03:00.000Z'), rotated().keys[1]!);
    expect(await codes(bundleOf(chain.slice(0, 4), early))).toEqual([
      ['KEY_NOT_VALID_AT_TIMESTAMP', 3],
      ['KEY_NOT_VALID_AT_TIMESTAMP', 4],
    ]);
    const revoked = historyOf(
      keyEntry(first, EPOCH, ROTATION, '2026-01-01T00:04:00.000Z'),
      rotated().keys[1]!,
    );
    const verdict = await verifyEvidenceBundle(bundleOf(chain, revoked), crypto);
    expect(verdict.failures.map((f) => [f.code, f.reason, f.sequenceNumber])).toEqual([
      ['KEY_REVOKED', 'revokedKey', 4],
    ]);
    expect(verdict.records.filter((r) => r.valid).map((r) => r.sequenceNumber)).toEqual([
      1, 2, 3, 5, 6, 7, 8,
    ]);
  });

  it('checks the key history: fingerprints and endorsements by the previous key', async () => {
    const [a, b] = rotated().keys as [ReturnType<typeof keyEntry>, ReturnType<typeof keyEntry>];
    const badPrint = historyOf({ ...a, fingerprint: '0'.repeat(64) }, b);
    expect((await codes(bundleOf(chain.slice(0, 1), badPrint)))[0]).toEqual(['BAD_KEY_HISTORY', null]);
    const unendorsed = historyOf(a, { ...b, endorsement: null });
    expect(await codes(bundleOf(chain.slice(0, 1), unendorsed))).toEqual([['BAD_KEY_HISTORY', null]]);
    const selfEndorsed = historyOf(a, keyEntry(second, ROTATION, null, null, second));
    expect(await codes(bundleOf(chain.slice(0, 1), selfEndorsed))).toEqual([['BAD_KEY_HISTORY', null]]);
  });

  it('answers MALFORMED_BUNDLE for anything that is not a bundle', async () => {
    expect(await codes([])).toEqual([['MALFORMED_BUNDLE', null]]);
    const verdict = await verifyEvidenceBundle(
      { ...bundleOf(chain, rotated()), format: 'x', records: 3 },
      crypto,
    );
    expect(verdict.valid).toBe(false);
    expect(verdict.failures.map((f) => f.message)).toEqual([
      'format must be "gls-evidence-bundle"',
      'records must be an array of records',
    ]);
  });
});

describe('evidence helpers', () => {
  it('converts DER signatures to r||s, padding short integers and dropping sign bytes', () => {
    const der = Uint8Array.from([0x30, 0x08, 0x02, 0x02, 0x00, 0x80, 0x02, 0x02, 0x01, 0x02]);
    const raw = derToP1363(der, 4);
    expect(Array.from(raw)).toEqual([0, 0, 0, 0x80, 0, 0, 1, 2]);
    expect(() => derToP1363(Uint8Array.from([0x30, 0x01, 0x02]))).toThrow();
    // 64 real signatures: about half have an r or s with its top bit set (a 0x00 sign byte in DER).
    const publicKey = createPublicKey({
      key: Buffer.from(first.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    for (let i = 0; i < 64; i += 1) {
      const message = Buffer.from(`m${i}`);
      const converted = derToP1363(sign('sha256', message, first.privateKey));
      expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, converted)).toBe(true);
    }
  });

  it('bounds a bundle by count and bytes, always keeping one record', () => {
    const records = chain.slice(0, 5);
    expect(countWithinBudget(records, 3)).toBe(3);
    const two = recordBytes(records[0]!) + recordBytes(records[1]!);
    expect(countWithinBudget(records, 1000, two)).toBe(2);
    expect(countWithinBudget(records, 1000, two - 1)).toBe(1);
    expect(countWithinBudget(records, 1000, 1)).toBe(1);
    expect(countWithinBudget([], 1000)).toBe(0);
  });

  it('gives the endorsement text whose UTF-8 is the endorsement message', () => {
    const entry = keyEntry(second, ROTATION);
    expect(Buffer.from(endorsementText(entry), 'utf8').equals(endorsementMessage(entry))).toBe(true);
  });
});

describe('a record evidence certificate', () => {
  it('must name a record of the bundle and carry its hashes', async () => {
    const record = chain[2]!;
    const certificate = {
      id: 'cert_1',
      ledgerRecordId: record.id,
      firmId: 'firm_a',
      firmName: 'Firm A',
      firmFrnNumber: '123456',
      issuedAt: '2026-01-02T00:00:00.000Z',
      verificationUrl: 'https://example.test/verify/cert_1',
      metadata: {},
      sequenceNumber: 3,
      recordHash: record.recordHash,
      chainHash: record.chainHash,
    };
    const single = (c: unknown) =>
      bundleOf([record], rotated(), { predecessor: chain[1]!, certificate: c as typeof certificate });
    const verdict = async (c: unknown) =>
      (await verifyEvidenceBundle(single(c), nodeEvidenceCrypto)).failures.map((f) => [f.code, f.message]);
    expect(await verdict(certificate)).toEqual([]);
    expect(await verdict(null)).toEqual([]);
    expect(await verdict({ ...certificate, chainHash: 'e'.repeat(64), firmId: 'firm_b' })).toEqual([
      [
        'CERTIFICATE_MISMATCH',
        'certificate cert_1 certified another chainHash, firmId than the record holds',
      ],
    ]);
    expect(await verdict({ ...certificate, ledgerRecordId: 'rec_other' })).toEqual([
      ['CERTIFICATE_MISMATCH', 'certificate cert_1 is for record rec_other, which is not in the bundle'],
    ]);
    expect((await verdict({ id: 1 }))[0]).toEqual([
      'MALFORMED_BUNDLE',
      'certificate must be absent, null or a certificate',
    ]);
  });
});
