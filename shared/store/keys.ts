/** Key builders. Every firm-owned item's partition key starts with the firm id (tenancy by construction). */
export const SEQUENCE_DIGITS = 12;

export function padSequence(sequenceNumber: number): string {
  return String(sequenceNumber).padStart(SEQUENCE_DIGITS, '0');
}

export const keys = {
  firmPk: (firmId: string) => `FIRM#${firmId}`,
  firm: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'FIRM' }),
  user: (firmId: string, userId: string) => ({ pk: `FIRM#${firmId}`, sk: `USER#${userId}` }),
  userEmail: (firmId: string, email: string) => ({
    pk: `FIRM#${firmId}`,
    sk: `USEREMAIL#${email.toLowerCase()}`,
  }),
  userSubject: (firmId: string, subject: string) => ({ pk: `FIRM#${firmId}`, sk: `USERSUB#${subject}` }),
  apiKey: (firmId: string, keyId: string) => ({ pk: `FIRM#${firmId}`, sk: `APIKEY#${keyId}` }),
  apiKeyHash: (hash: string) => ({ pk: `APIKEYHASH#${hash}`, sk: 'APIKEYHASH' }),
  ledgerHead: (firmId: string) => ({ pk: `FIRM#${firmId}`, sk: 'HEAD' }),
  ledgerRecord: (firmId: string, sequenceNumber: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `REC#${padSequence(sequenceNumber)}`,
  }),
  ledgerOutbox: (firmId: string, sequenceNumber: number) => ({
    pk: `FIRM#${firmId}`,
    sk: `OUTBOX#${padSequence(sequenceNumber)}`,
  }),
};

export const SK_PREFIX = {
  user: 'USER#',
  apiKey: 'APIKEY#',
  record: 'REC#',
  outbox: 'OUTBOX#',
  job: 'JOB#',
  certificate: 'CERT#',
} as const;

/** Object key of a record's immutable copy: by firm and zero-padded sequence, so a listing is in chain order. */
export function immutableRecordKey(firmId: string, sequenceNumber: number): string {
  return `ledger/${firmId}/${padSequence(sequenceNumber)}.json`;
}
