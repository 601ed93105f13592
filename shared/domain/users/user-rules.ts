import type { Principal, Role } from '../auth/principal.js';

/**
 * Rules about a firm's users, without storage. Who may do what beyond the route table's role check, and the
 * invariant that a firm always keeps an active FIRM_ADMIN.
 */

/** Professional qualifications a user may hold (spec, User). */
export const QUALIFICATIONS = ['CFA', 'CFP', 'DIP_PFS', 'CISI', 'IMC'] as const;
export type Qualification = (typeof QUALIFICATIONS)[number];

/** The regulator's individual reference number (IRN): three letters and five digits, e.g. ABC12345. */
export const FCA_REF_PATTERN = /^[A-Z]{3}[0-9]{5}$/;
export const FCA_REF_MESSAGE = 'An FCA individual reference number is 3 letters and 5 digits, e.g. ABC12345';

/** The role a new user gets when none is given. */
export const DEFAULT_ROLE: Role = 'REVIEWER';

/** Role changes (and roles other than the default at creation) need a signed-in FIRM_ADMIN, never an API key. */
export function mayAssignRoles(principal: Principal): boolean {
  return principal.kind === 'user' && principal.role === 'FIRM_ADMIN';
}

/** Whether `principal` may create a user with `role`: the default role needs no more than the route allows. */
export function mayCreateWithRole(principal: Principal, role: Role): boolean {
  return role === DEFAULT_ROLE || mayAssignRoles(principal);
}

/** The part of a user the admin invariant looks at. */
export interface RoleState {
  role: Role;
  deactivatedAt: string | null;
}

export function isActiveAdmin(user: RoleState): boolean {
  return user.role === 'FIRM_ADMIN' && user.deactivatedAt === null;
}

/** True when a change takes an active FIRM_ADMIN away (a demotion or a deactivation). */
export function removesActiveAdmin(before: RoleState, after: RoleState): boolean {
  return isActiveAdmin(before) && !isActiveAdmin(after);
}

/** Number of active FIRM_ADMINs among `users`, not counting the user `exceptId`. */
export function activeAdminsExcept(users: readonly (RoleState & { id: string })[], exceptId: string): number {
  return users.filter((user) => user.id !== exceptId && isActiveAdmin(user)).length;
}
