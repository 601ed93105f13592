import { generateKeyPairSync, sign } from 'node:crypto';
import {
  canonicalJson,
  computeChainHash,
  computeRecordHash,
  signedMessage,
} from '../../../shared/ledger/hashing.js';
import { genesisHistory } from '../../../shared/ledger/key-rotation.js';
import type { LedgerRecord, RecordPayload } from '../../../shared/ledger/record.js';
import { checkCopy, chooseCopy, gapsIn } from '../../../shared/services/recover/copy-check.js';
import { immutableRecordKey } from '../../../shared/store/immutable-layout.js';

/** The pure checks `ledgerctl recover ledger` makes on every immutable copy before writing it. */

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const spki = publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
const history = genesisHistory(spki);
const FIRM = 'firm_01M8G09P3STZXS8F2X5XJCGEWV';

function seal(payload: RecordPayload, previousHash: string | null): LedgerRecord {
  const recordHash = computeRecordHash(payload);
  const chainHash = computeChainHash(previousHash, recordHash);
  const signature = sign('sha256', signedMessage(chainHash), privateKey).toString('base64');
  return { ...payload, previousHash, recordHash, chainHash, signature, publicKey: spki };
}

function chain(length: number): LedgerRecord[] {
  const records: LedgerRecord[] = [];
  for (let i = 1; i <= length; i++)
    records.push(
      seal(
        {
          id: `rec_01M8G09RWHFQ64B1RPWB5XR2N${i}`,
          firmId: FIRM,
          sequenceNumber: i,
          eventType: 'INCIDENT_LOGGED',
          actorId: 'usr_x',
          actorName: 'Xavier',
          actorFcaRef: null,
          documentHash: '',
          documentMetadata: { n: i, note: 'z', a: [1, 2.5] },
          timestamp: new Date(Date.parse(history.keys[0]!.validFrom) + 1000 * i).toISOString(),
          reviewJobId: null,
        },
        records.at(-1)?.chainHash ?? null,
      ),
    );
  return records;
}

const copyOf = (record: LedgerRecord, bytes = canonicalJson(record)) => ({
  key: immutableRecordKey(record.firmId, record.sequenceNumber, record.id),
  bytes,
});
const at = (records: LedgerRecord[], sequenceNumber: number) => ({
  firmId: FIRM,
  sequenceNumber,
  previousChainHash: records[sequenceNumber - 2]?.chainHash ?? null,
});

describe('checkCopy', () => {
  const records = chain(3);

  it('accepts the canonical copy of a sound record that links', () => {
    const verdict = checkCopy(history, at(records, 2), copyOf(records[1]!));
    expect(verdict).toEqual({
      ok: true,
      key: copyOf(records[1]!).key,
      bytes: canonicalJson(records[1]),
      record: records[1],
    });
  });

  it('refuses bytes that are not the canonical JSON, though they hold the same record', () => {
    const pretty = JSON.stringify(records[0], null, 2);
    expect(checkCopy(history, at(records, 1), copyOf(records[0]!, pretty))).toMatchObject({
      ok: false,
      problems: ['its bytes are not the canonical JSON (RFC 8785) of the record they hold'],
    });
  });

  it('refuses a changed field (record hash), extra fields, and what is not JSON', () => {
    const changed = { ...records[0]!, actorName: 'Mallory' };
    expect(checkCopy(history, at(records, 1), copyOf(records[0]!, canonicalJson(changed)))).toMatchObject({
      ok: false,
      problems: ['record hash mismatch'],
    });
    const extra = canonicalJson({ ...records[0]!, pk: 'FIRM#x' });
    expect(checkCopy(history, at(records, 1), copyOf(records[0]!, extra))).toMatchObject({
      ok: false,
      problems: ["its fields are not exactly the record's 16 fields"],
    });
    expect(checkCopy(history, at(records, 1), copyOf(records[0]!, '{"id":'))).toMatchObject({
      ok: false,
      problems: ['it is not a JSON record'],
    });
  });

  it('refuses a copy that does not link, sits at another position or firm, or has a key outside the history', () => {
    expect(
      checkCopy(
        history,
        { ...at(records, 3), previousChainHash: records[0]!.chainHash },
        copyOf(records[2]!),
      ),
    ).toMatchObject({ ok: false, problems: ['its previousHash is not the chain hash of sequence number 2'] });
    expect(checkCopy(history, at(records, 3), copyOf(records[1]!)).ok).toBe(false);
    expect(
      checkCopy(history, { ...at(records, 1), firmId: 'firm_other' }, copyOf(records[0]!)),
    ).toMatchObject({
      ok: false,
      problems: expect.arrayContaining(['it belongs to another firm']),
    });
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    const stranger = genesisHistory(other.export({ format: 'der', type: 'spki' }).toString('base64'));
    expect(checkCopy(stranger, at(records, 1), copyOf(records[0]!))).toMatchObject({
      ok: false,
      problems: ['it is signed with a key the service has not published'],
    });
  });
});

describe('chooseCopy', () => {
  const records = chain(2);

  it('takes the one sound copy among several claiming a position, and rejects the rest', () => {
    const forged = { ...records[1]!, id: 'rec_01M8G09RWHFQ64B1RPWB5XR2NZ', actorName: 'Mallory' };
    const { chosen, rejected } = chooseCopy(history, at(records, 2), [copyOf(forged), copyOf(records[1]!)]);
    expect(chosen?.record).toEqual(records[1]);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.key).toBe(copyOf(forged).key);
  });

  it('recovers nothing at a position with no copy or with two sound ones', () => {
    expect(chooseCopy(history, at(records, 2), [])).toEqual({ chosen: null, rejected: [] });
    const twin = seal({ ...records[1]!, id: 'rec_01M8G09RWHFQ64B1RPWB5XR2NY' }, records[0]!.chainHash);
    const { chosen, rejected } = chooseCopy(history, at(records, 2), [copyOf(records[1]!), copyOf(twin)]);
    expect(chosen).toBeNull();
    expect(rejected.map((r) => r.problems)).toEqual([
      ['2 copies that each pass every check claim sequence number 2'],
      ['2 copies that each pass every check claim sequence number 2'],
    ]);
  });
});

describe('gapsIn', () => {
  it('finds runs of missing positions below the highest copy', () => {
    expect(gapsIn([1, 2, 3])).toEqual([]);
    expect(gapsIn([2, 3, 7, 8, 10])).toEqual([
      { from: 1, to: 1 },
      { from: 4, to: 6 },
      { from: 9, to: 9 },
    ]);
    expect(gapsIn([])).toEqual([]);
  });
});
