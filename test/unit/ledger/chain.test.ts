import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import {
  computeChainHash,
  computeRecordHash,
  immutableBytes,
  signedMessage,
} from '../../../shared/ledger/hashing.js';
import type { LedgerRecord, RecordPayload } from '../../../shared/ledger/record.js';
import { sealRecord } from '../../../shared/ledger/seal.js';
import { publicKeyBase64 } from '../../../shared/ledger/signing-key.js';
import { checkRecord, verifySignature } from '../../../shared/ledger/verify.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

const payload: RecordPayload = {
  id: 'rec_01JD0000000000000000000000',
  firmId: 'firm_01JD0000000000000000000000',
  sequenceNumber: 1,
  eventType: 'DOCUMENT_SUBMITTED',
  actorId: 'usr_01JD0000000000000000000000',
  actorName: 'Ann Admin',
  actorFcaRef: null,
  documentHash: 'a'.repeat(64),
  documentMetadata: { documentReference: 'DOC-1', nested: { z: 1, a: [true, null] } },
  timestamp: '2026-11-21T10:00:00.000Z',
  reviewJobId: null,
};

describe('record and chain hashes', () => {
  it('hashes the canonical payload (sorted keys, no whitespace)', () => {
    const expectedText =
      '{"actorFcaRef":null,"actorId":"usr_01JD0000000000000000000000","actorName":"Ann Admin",' +
      `"documentHash":"${'a'.repeat(64)}","documentMetadata":{"documentReference":"DOC-1","nested":{"a":[true,null],"z":1}},` +
      '"eventType":"DOCUMENT_SUBMITTED","firmId":"firm_01JD0000000000000000000000","id":"rec_01JD0000000000000000000000",' +
      '"reviewJobId":null,"sequenceNumber":1,"timestamp":"2026-11-21T10:00:00.000Z"}';
    expect(computeRecordHash(payload)).toBe(sha256(expectedText));
  });

  it('ignores fields outside the payload', () => {
    const withExtras = { ...payload, recordHash: 'x', pk: 'FIRM#x' } as unknown as RecordPayload;
    expect(computeRecordHash(withExtras)).toBe(computeRecordHash(payload));
  });

  it('chains by concatenating the hex texts, the first link with the empty string', () => {
    const recordHash = computeRecordHash(payload);
    expect(computeChainHash(null, recordHash)).toBe(sha256(recordHash));
    expect(computeChainHash('b'.repeat(64), recordHash)).toBe(sha256('b'.repeat(64) + recordHash));
  });

  it('signs the UTF-8 bytes of the chain hash text', () => {
    expect(Buffer.from(signedMessage('ab12')).toString('hex')).toBe('61623132');
  });
});

describe('seal and verify', () => {
  const signer = new LocalSigner(join(mkdtempSync(join(tmpdir(), 'gls-signer-')), 'key.pem'));
  let first: LedgerRecord;
  let second: LedgerRecord;

  beforeAll(async () => {
    const key = await publicKeyBase64(signer);
    first = await sealRecord(payload, null, signer, key);
    second = await sealRecord({ ...payload, id: 'rec_2', sequenceNumber: 2 }, first.chainHash, signer, key);
  });

  it('produces a record that verifies and links', () => {
    expect(first.previousHash).toBeNull();
    expect(checkRecord(first, null)).toEqual([]);
    expect(checkRecord(second, first.chainHash)).toEqual([]);
    expect(verifySignature(second.chainHash, second.signature, second.publicKey)).toBe(true);
  });

  it('emits DER signatures and an SPKI P-256 key', async () => {
    const signature = Buffer.from(first.signature, 'base64');
    expect(signature[0]).toBe(0x30); // ASN.1 SEQUENCE
    const spki = Buffer.from(await signer.publicKeySpki());
    // id-ecPublicKey (1.2.840.10045.2.1) and prime256v1 (1.2.840.10045.3.1.7) appear in the SPKI header.
    expect(spki.includes(Buffer.from('2a8648ce3d0201', 'hex'))).toBe(true);
    expect(spki.includes(Buffer.from('2a8648ce3d030107', 'hex'))).toBe(true);
  });

  it.each([
    ['documentHash', { documentHash: 'c'.repeat(64) }],
    ['documentMetadata', { documentMetadata: { documentReference: 'DOC-2' } }],
    ['actorName', { actorName: 'Mallory' }],
    ['timestamp', { timestamp: '2026-11-21T10:00:00.001Z' }],
    ['sequenceNumber', { sequenceNumber: 7 }],
  ])('detects a changed %s as a record hash mismatch', (_field, change) => {
    expect(checkRecord({ ...first, ...change }, null)).toContain('RECORD_HASH_MISMATCH');
  });

  it('detects a recomputed hash without a valid signature', () => {
    const forged = { ...first, actorName: 'Mallory' };
    forged.recordHash = computeRecordHash(forged);
    forged.chainHash = computeChainHash(null, forged.recordHash);
    expect(checkRecord(forged, null)).toEqual(['BAD_SIGNATURE']);
  });

  it('detects a broken link and a wrong chain hash', () => {
    expect(checkRecord(second, 'd'.repeat(64))).toEqual(['BROKEN_LINK']);
    expect(checkRecord({ ...second, previousHash: 'd'.repeat(64) }, first.chainHash)).toEqual(
      expect.arrayContaining(['CHAIN_HASH_MISMATCH', 'BROKEN_LINK']),
    );
  });

  it('refuses a signature by another key and garbage input', async () => {
    const other = new LocalSigner(join(mkdtempSync(join(tmpdir(), 'gls-signer-')), 'key.pem'));
    const otherKey = await publicKeyBase64(other);
    expect(verifySignature(first.chainHash, first.signature, otherKey)).toBe(false);
    expect(verifySignature(first.chainHash, 'bm90IGEgc2lnbmF0dXJl', first.publicKey)).toBe(false);
    expect(verifySignature(first.chainHash, first.signature, 'bm90IGEga2V5')).toBe(false);
  });

  it('writes the immutable copy as the canonical JSON of the whole record', () => {
    const text = Buffer.from(immutableBytes(first)).toString('utf8');
    expect(JSON.parse(text)).toEqual(first);
    expect(text.startsWith('{"actorFcaRef":null,')).toBe(true);
  });
});
