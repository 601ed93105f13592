import { monotonicFactory } from 'ulid';

/** Prefixes of our opaque identifiers: `<prefix>_<ULID>`, sortable by creation time. */
export const ID_PREFIX = {
  firm: 'firm',
  user: 'usr',
  apiKey: 'key',
  record: 'rec',
  request: 'req',
  verification: 'ver',
  documentType: 'doctype',
  job: 'job',
  impactAssessment: 'ia',
  incident: 'inc',
  remediation: 'rem',
  reportLog: 'rpt',
  webhook: 'wh',
  webhookDelivery: 'whd',
  certificate: 'cert',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const nextUlid = monotonicFactory();

export function newId(kind: IdKind): string {
  return `${ID_PREFIX[kind]}_${nextUlid()}`;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` looks like an identifier of this kind (used to answer 404 early, never as authorisation). */
export function isId(kind: IdKind, value: string): boolean {
  const prefix = `${ID_PREFIX[kind]}_`;
  return value.startsWith(prefix) && ULID.test(value.slice(prefix.length));
}
