import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSigner } from '../../../shared/adapters/local/local-signer.js';
import { checkChunk, startCursor, type StoredRow } from '../../../shared/domain/integrity/chain-check.js';
import { diffRecords } from '../../../shared/domain/integrity/record-diff.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';
import { sealRecord } from '../../../shared/ledger/seal.js';
import { publicKeyBase64 } from '../../../shared/ledger/signing-key.js';
import type { SigningKeyHistory } from '../../../shared/ledger/key-history.js';
import { genesisHistory } from '../../../shared/ledger/key-rotation.js';

const FIRM = 'firm_1';
let chain: LedgerRecord[];
let trusted: SigningKeyHistory;

beforeAll(async () => {
  const signer = new LocalSigner(join(mkdtempSync(join(tmpdir(), 'gls-chain-')), 'key.pem'));
  const key = await publicKeyBase64(signer);
  trusted = genesisHistory(key);
  chain = [];
  let previous: string | null = null;
  for (let n = 1; n <= 6; n++) {
    const record = await sealRecord(
      {
        id: `rec_${n}`,
        firmId: FIRM,
        sequenceNumber: n,
        eventType: 'GENERATION_RECORDED',
        actorId: 'a',
        actorName: 'A',
        actorFcaRef: null,
        documentHash: '',
        documentMetadata: { n },
        timestamp: `2026-01-01T00:00:0${n}.000Z`,
        reviewJobId: null,
      },
      previous,
      signer,
      key,
    );
    chain.push(record);
    previous = record.chainHash;
  }
});

const rows = (records: LedgerRecord[]): StoredRow[] =>
  records.map((record) => ({ position: record.sequenceNumber, record }));
const codes = (result: ReturnType<typeof checkChunk>) =>
  Object.fromEntries(result.broken.map((b) => [b.sequenceNumber, b.problems.map((p) => p.code)]));

describe('checkChunk', () => {
  it('accepts a sound chain checked in two chunks, carrying the link across', () => {
    const first = checkChunk(FIRM, rows(chain.slice(0, 3)), 3, startCursor(1, null), trusted);
    expect(first.broken).toEqual([]);
    expect(first.cursor).toMatchObject({
      nextSequence: 4,
      previousChainHash: chain[2]!.chainHash,
      recordsChecked: 3,
    });
    const second = checkChunk(FIRM, rows(chain.slice(3)), 6, first.cursor, trusted);
    expect(second.broken).toEqual([]);
    expect(second.cursor).toMatchObject({ nextSequence: 7, recordsChecked: 6, brokenCount: 0 });
  });

  it('reports a gap as missing and does not blame the next record for the unknown link', () => {
    const result = checkChunk(
      FIRM,
      rows([chain[0]!, chain[1]!, chain[3]!]),
      4,
      startCursor(1, null),
      trusted,
    );
    expect(codes(result)).toEqual({ 3: ['MISSING_RECORD'] });
    expect(result.broken[0]!.recordId).toBeNull();
  });

  it('reports trailing missing records up to the head', () => {
    const result = checkChunk(FIRM, rows(chain.slice(0, 4)), 6, startCursor(1, null), trusted);
    expect(codes(result)).toEqual({ 5: ['MISSING_RECORD'], 6: ['MISSING_RECORD'] });
  });

  it('flags a row stored under the wrong position and a foreign firm', () => {
    const swapped: StoredRow[] = [
      { position: 1, record: chain[0]! },
      { position: 2, record: chain[2]! },
      { position: 3, record: chain[1]! },
    ];
    const result = checkChunk(FIRM, swapped, 3, startCursor(1, null), trusted);
    expect(codes(result)[2]).toEqual(expect.arrayContaining(['BROKEN_LINK', 'SEQUENCE_MISMATCH']));
    expect(codes(result)[3]).toEqual(expect.arrayContaining(['BROKEN_LINK', 'SEQUENCE_MISMATCH']));
    expect(codes(checkChunk('firm_other', rows([chain[0]!]), 1, startCursor(1, null), trusted))).toEqual({
      1: ['FIRM_MISMATCH'],
    });
  });

  it('flags a record signed by a key that is not published', () => {
    const other = genesisHistory(Buffer.from('other').toString('base64'));
    expect(codes(checkChunk(FIRM, rows([chain[0]!]), 1, startCursor(1, null), other))).toEqual({
      1: ['UNTRUSTED_KEY'],
    });
  });

  it("flags a record outside its key's window and one signed after its key's revocation", () => {
    const key = trusted.keys[0]!;
    const windowed: SigningKeyHistory = {
      version: 2,
      keys: [{ ...key, validUntil: '2026-01-01T00:00:03.000Z' }],
    };
    expect(codes(checkChunk(FIRM, rows(chain.slice(0, 4)), 4, startCursor(1, null), windowed))).toEqual({
      3: ['KEY_NOT_VALID_AT_TIMESTAMP'],
      4: ['KEY_NOT_VALID_AT_TIMESTAMP'],
    });
    const revoked: SigningKeyHistory = {
      version: 2,
      keys: [{ ...key, revokedFrom: '2026-01-01T00:00:02.000Z' }],
    };
    expect(codes(checkChunk(FIRM, rows(chain.slice(0, 3)), 3, startCursor(1, null), revoked))).toEqual({
      2: ['KEY_REVOKED'],
      3: ['KEY_REVOKED'],
    });
  });

  it('starts an incremental check from a checkpoint hash', () => {
    const result = checkChunk(FIRM, rows(chain.slice(4)), 6, startCursor(5, chain[3]!.chainHash), trusted);
    expect(result.broken).toEqual([]);
    const wrong = checkChunk(FIRM, rows(chain.slice(4)), 6, startCursor(5, 'f'.repeat(64)), trusted);
    expect(codes(wrong)).toEqual({ 5: ['BROKEN_LINK'] });
  });
});

describe('diffRecords', () => {
  it('lists only differing fields, comparing objects canonically', () => {
    const a = chain[0]!;
    expect(diffRecords(a, { ...a, documentMetadata: { n: 1 } })).toEqual([]);
    expect(diffRecords({ ...a, actorName: 'M' }, a)).toEqual([
      { field: 'actorName', database: 'M', immutable: 'A' },
    ]);
  });

  it('reports every field when one side is missing', () => {
    const diffs = diffRecords(null, chain[0]!);
    expect(diffs).toHaveLength(16);
    expect(diffs.every((d) => d.database === null)).toBe(true);
  });
});
