import { judgeRecordRow, tamperSubject, type StoredRow } from '../../../shared/domain/integrity/tamper.js';
import { canonicalJson } from '../../../shared/ledger/hashing.js';
import type { LedgerRecord } from '../../../shared/ledger/record.js';
import { recordIndexAttributes } from '../../../shared/store/record-index.js';

const record: LedgerRecord = {
  id: 'rec_01J00000000000000000000000',
  firmId: 'firm_a',
  sequenceNumber: 7,
  eventType: 'DOCUMENT_SUBMITTED',
  actorId: 'usr_1',
  actorName: 'Ann',
  actorFcaRef: null,
  documentHash: 'a'.repeat(64),
  documentMetadata: { documentReference: 'DOC-7', score: 0.5 },
  timestamp: '2026-11-28T00:00:00.000Z',
  reviewJobId: null,
  previousHash: 'b'.repeat(64),
  recordHash: 'c'.repeat(64),
  chainHash: 'd'.repeat(64),
  signature: 'sig',
  publicKey: 'key',
};
const storage = recordIndexAttributes(record) as Record<string, string>;
const copy = { bytes: canonicalJson(record), record, storage };
const row = (changes: Partial<LedgerRecord> = {}, extra: Record<string, unknown> = {}): StoredRow => ({
  record: { ...record, ...changes },
  storage: { ...storage, ...extra },
});

describe('tamperSubject', () => {
  it("names a record row's MODIFY and REMOVE, and the head's REMOVE", () => {
    expect(tamperSubject('MODIFY', 'FIRM#firm_a', 'REC#000000000007')).toEqual({
      kind: 'record',
      firmId: 'firm_a',
      sequenceNumber: 7,
    });
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'REC#000000000001')).toMatchObject({ sequenceNumber: 1 });
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'HEAD')).toEqual({ kind: 'head', firmId: 'firm_a' });
  });

  it('leaves alone what the service does itself: creating rows, moving the head, outbox and intents', () => {
    expect(tamperSubject('INSERT', 'FIRM#firm_a', 'REC#000000000007')).toBeNull();
    expect(tamperSubject('MODIFY', 'FIRM#firm_a', 'HEAD')).toBeNull();
    expect(tamperSubject('INSERT', 'FIRM#firm_a', 'HEAD')).toBeNull();
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'OUTBOX#000000000007')).toBeNull();
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'APPEND#rec_1')).toBeNull();
  });

  it('ignores keys that are not a firm record row', () => {
    expect(tamperSubject('REMOVE', 'SIGNINGKEYS', 'REC#000000000007')).toBeNull();
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'REC#7')).toBeNull();
    expect(tamperSubject('REMOVE', 'FIRM#firm_a', 'REC#000000000000')).toBeNull();
  });
});

describe('judgeRecordRow', () => {
  it('finds the row restore writes from the copy intact', () => {
    expect(judgeRecordRow(row(), copy)).toEqual({ intact: true });
  });

  it('calls a missing row REMOVED', () => {
    expect(judgeRecordRow(null, copy)).toEqual({ intact: false, change: 'REMOVED', fieldsChanged: [] });
  });

  it('names the record fields that differ from the copy', () => {
    expect(judgeRecordRow(row({ actorName: 'Mallory', documentHash: 'e'.repeat(64) }), copy)).toEqual({
      intact: false,
      change: 'MODIFIED',
      fieldsChanged: ['actorName', 'documentHash'],
    });
  });

  it('names index attributes changed, added or dropped although the record is untouched', () => {
    const { recEventType: _dropped, ...withoutEventType } = storage;
    expect(
      judgeRecordRow({ record, storage: { ...withoutEventType, recTs: 'x', extra: 'y' } }, copy),
    ).toEqual({ intact: false, change: 'MODIFIED', fieldsChanged: ['extra', 'recEventType', 'recTs'] });
  });

  it('never takes a value without a canonical form (a lone surrogate) for the copy', () => {
    expect(judgeRecordRow(row({ actorName: '\uD800' }), copy)).toMatchObject({
      intact: false,
      fieldsChanged: ['actorName'],
    });
  });

  it('cannot prove a row without a copy: MODIFIED', () => {
    expect(judgeRecordRow(row(), null)).toEqual({ intact: false, change: 'MODIFIED', fieldsChanged: [] });
  });
});
