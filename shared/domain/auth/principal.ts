import type { Actor } from '../../ledger/record.js';

export const ROLES = ['FIRM_ADMIN', 'REVIEWER', 'LEAD_REVIEWER'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What an API key may do. `full`: act for the firm on every route that takes an API key (the only kind before
 * scopes existed: a key stored without a scope is `full`). `auditor`: read-only, for a regulator or a witness
 * operator: only the routes whose auth admits auditors (the ledger records and the verifiable log); every other
 * route answers it 403.
 */
export const API_KEY_SCOPES = ['full', 'auditor'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Who is calling: a firm's API key, or one of its users signed in through the OIDC issuer. */
export type Principal =
  | {
      kind: 'apiKey';
      firmId: string;
      keyId: string;
      name: string;
      /** Absent: `full` (authentication always sets it; code that builds a principal itself may leave it out). */
      scope?: ApiKeyScope;
    }
  | {
      kind: 'user';
      firmId: string;
      userId: string;
      name: string;
      email: string;
      role: Role;
      fcaRef: string | null;
    };

/** The actor recorded on ledger records for a principal. */
export function actorOf(principal: Principal): Actor {
  return principal.kind === 'user'
    ? { id: principal.userId, name: principal.name, fcaRef: principal.fcaRef }
    : { id: principal.keyId, name: `API key: ${principal.name}`, fcaRef: null };
}

/** USER or API_KEY, as recorded on FIRM_SETTINGS_UPDATED. */
export function actorType(principal: Principal): 'USER' | 'API_KEY' {
  return principal.kind === 'user' ? 'USER' : 'API_KEY';
}
