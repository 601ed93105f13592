import type { Principal, Role } from '../auth/principal.js';

/**
 * Who did something, as governance resources embed it (createdBy, signedOffBy, reportedBy,
 * generatedByUser): a snapshot taken when it happened, so the record shows the name and role the person
 * had then. An API key is named as such; it has no e-mail or role.
 */
export interface ActorSummary {
  id: string;
  type: 'USER' | 'API_KEY';
  name: string;
  email: string | null;
  role: Role | null;
}

export function actorSummary(principal: Principal): ActorSummary {
  return principal.kind === 'user'
    ? {
        id: principal.userId,
        type: 'USER',
        name: principal.name,
        email: principal.email,
        role: principal.role,
      }
    : { id: principal.keyId, type: 'API_KEY', name: principal.name, email: null, role: null };
}

/** The `...ById` fields reference users: a user's id, or null when an API key acted. */
export function userIdOf(principal: Principal): string | null {
  return principal.kind === 'user' ? principal.userId : null;
}
