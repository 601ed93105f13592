import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  reserveCertificateId,
  saveCertificate,
  type CertificateItem,
} from '../../../shared/store/certificate-store.js';
import { mockedStore } from '../../support/mocked-store.js';

const { db, deps } = mockedStore();

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

const certificate = {
  id: 'cert_1',
  ledgerRecordId: 'rec_1',
  firmId: 'firm_a',
  firmName: 'Acme Advice',
  firmFrnNumber: '123456',
  issuedAt: '2026-11-26T10:00:00.000Z',
  verificationUrl: 'https://example.test/verify/cert_1',
  pdfStorageKey: 'certificates/firm_a/cert_1.pdf',
  metadata: {},
  sequenceNumber: 1,
  recordHash: 'a'.repeat(64),
  chainHash: 'b'.repeat(64),
} as unknown as CertificateItem;

beforeEach(() => db.reset());

describe('certificate writes meeting concurrent transactions', () => {
  it('saves after conflicts on the counter shard, trying again after a backoff', async () => {
    db.on(TransactWriteCommand)
      .rejectsOnce(cancelled('None', 'None', 'TransactionConflict'))
      .rejectsOnce(cancelled('None', 'None', 'TransactionConflict'))
      .resolves({});
    await expect(saveCertificate(deps, certificate)).resolves.toBe(true);
    expect(db.commandCalls(TransactWriteCommand)).toHaveLength(3);
  });

  it('says already saved when its item exists, and gives up with an error (the message is redelivered) when every attempt conflicts', async () => {
    db.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None', 'None'));
    await expect(saveCertificate(deps, certificate)).resolves.toBe(false);
    db.reset();
    db.on(TransactWriteCommand).rejects(cancelled('None', 'None', 'TransactionConflict'));
    await expect(saveCertificate(deps, certificate)).rejects.toThrow('met a concurrent transaction');
    expect(db.commandCalls(TransactWriteCommand)).toHaveLength(8);
  });

  it('reserves an id after a conflict, and returns the existing reservation when another won', async () => {
    // One item: a plain conditional Put (conditional-write.ts).
    const candidate = { certificateId: 'cert_2', reservedAt: '2026-11-26T10:00:00.000Z' };
    db.on(PutCommand)
      .rejectsOnce(new TransactionConflictException({ message: 'in progress', $metadata: {} }))
      .resolves({});
    await expect(reserveCertificateId(deps, 'firm_a', 'rec_1', candidate)).resolves.toEqual(candidate);
    expect(db.commandCalls(PutCommand)).toHaveLength(2);
    db.reset();
    db.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
    db.on(GetCommand).resolves({ Item: { certificateId: 'cert_1', reservedAt: '2026-11-25T10:00:00.000Z' } });
    await expect(reserveCertificateId(deps, 'firm_a', 'rec_1', candidate)).resolves.toEqual({
      certificateId: 'cert_1',
      reservedAt: '2026-11-25T10:00:00.000Z',
    });
  });
});
