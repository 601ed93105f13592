import type { Principal, Role } from '../domain/auth/principal.js';
import {
  activeAdminsExcept,
  mayAssignRoles,
  mayCreateWithRole,
  removesActiveAdmin,
  type RoleState,
} from '../domain/users/user-rules.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from '../store/conditional-write.js';
import { LOST_RACE, retryOnLostRace, type LostRace } from '../store/lost-race.js';
import type { Qualification } from '../domain/users/user-rules.js';
import {
  adminGuardItem,
  getUser,
  getUserForUpdate,
  listUsers,
  putUserItems,
  readAdminGuard,
  userChangeItem,
  type UserChange,
  type UserItem,
} from '../store/user-store.js';

/** A user as the interface shows it: exactly the specification's fields (no firm id, no OIDC subject). */
export type PublicUser = Omit<UserItem, 'firmId' | 'subject'>;

export function presentUser(user: UserItem): PublicUser {
  return {
    id: user.id,
    name: user.name,
    email: user.email,
    fcaRef: user.fcaRef,
    qualifications: user.qualifications,
    role: user.role,
    isAvailable: user.isAvailable,
    specialistVulnerability: user.specialistVulnerability,
    invitedAt: user.invitedAt,
    activatedAt: user.activatedAt,
    deactivatedAt: user.deactivatedAt,
    activeJobId: user.activeJobId,
  };
}

/** Every user of the firm, deactivated ones included, oldest first. */
export async function firmUsers(deps: Deps, firmId: string): Promise<PublicUser[]> {
  return (await listUsers(deps, firmId)).map(presentUser);
}

/** Tries of an invitation's write while concurrent transactions are in the way. */
const INVITE_ATTEMPTS = 8;

export interface NewUserInput {
  name: string;
  email: string;
  fcaRef: string | null;
  qualifications: Qualification[];
  role: Role;
  specialistVulnerability: boolean;
}

/**
 * Adds a user to the firm (invited: not signed in yet). The e-mail is stored in lower case and is unique in
 * the firm, enforced by the conditional write of its index entry, deactivated users included.
 */
export async function inviteUser(deps: Deps, principal: Principal, input: NewUserInput): Promise<PublicUser> {
  if (!mayCreateWithRole(principal, input.role))
    throw new ForbiddenError(`Creating a user with role ${input.role} requires a signed-in FIRM_ADMIN`);
  const user: UserItem = {
    id: newId('user'),
    firmId: principal.firmId,
    name: input.name,
    email: input.email.toLowerCase(),
    fcaRef: input.fcaRef,
    qualifications: input.qualifications,
    role: input.role,
    isAvailable: true,
    specialistVulnerability: input.specialistVulnerability,
    invitedAt: isoNow(deps.clock),
    activatedAt: null,
    deactivatedAt: null,
    activeJobId: null,
  };
  await retryOnLostRace(
    async () => {
      const outcome = await writeConditionally(deps, putUserItems(deps, user));
      if (outcome.status === 'condition-failed')
        throw new ConflictError('A user with this e-mail already exists in the firm');
      return outcome.status === 'committed' ? outcome : LOST_RACE;
    },
    {
      attempts: INVITE_ATTEMPTS,
      exhausted: () => new ConflictError('Users of the firm are being changed concurrently; retry'),
    },
  );
  return presentUser(user);
}

export interface UserUpdate {
  specialistVulnerability?: boolean;
  role?: Role;
}

/** Tries of a change: a failed condition and a concurrent transaction in the way both re-read the user. */
const CHANGE_ATTEMPTS = 8;

/**
 * Changes a user's specialist flag and/or role. Any `role` field needs a signed-in FIRM_ADMIN (403 for an
 * API key); a deactivated user cannot be changed (409); the last active FIRM_ADMIN cannot be demoted (409).
 */
export async function changeUser(
  deps: Deps,
  principal: Principal,
  userId: string,
  update: UserUpdate,
): Promise<PublicUser> {
  if (update.role !== undefined && !mayAssignRoles(principal))
    throw new ForbiddenError('Changing a role requires a signed-in FIRM_ADMIN');
  return withUser(deps, principal.firmId, userId, async (user) => {
    if (user.deactivatedAt) throw new ConflictError('The user is deactivated');
    const change: UserChange = {};
    if (update.role !== undefined && update.role !== user.role) change.role = update.role;
    if (
      update.specialistVulnerability !== undefined &&
      update.specialistVulnerability !== user.specialistVulnerability
    )
      change.specialistVulnerability = update.specialistVulnerability;
    if (Object.keys(change).length === 0) return user;
    return (await commitChange(deps, user, change)) ? { ...user, ...change } : LOST_RACE;
  }).then(presentUser);
}

export interface Deactivation {
  user: PublicUser;
  /** False when the user was already deactivated (the call is idempotent). */
  changed: boolean;
  /**
   * The job the user was working on, still assigned to them. Deactivation keeps it there (nothing is lost if
   * the process stops now); the review routing re-routes it and clears the user's activeJobId. A repeated
   * DELETE returns it again until that has happened.
   */
  activeJobId: string | null;
}

/**
 * Deactivates a user: stamps deactivatedAt and makes them unavailable; their tokens get 401 from the next
 * request on. Not oneself (400); not the firm's last active FIRM_ADMIN (409); idempotent.
 */
export async function deactivateFirmUser(
  deps: Deps,
  principal: Principal,
  userId: string,
): Promise<Deactivation> {
  if (principal.kind === 'user' && principal.userId === userId)
    throw new ValidationError('You cannot deactivate yourself', [
      { path: 'params.id', message: 'Is the calling user' },
    ]);
  let changed = false;
  const user = await withUser(deps, principal.firmId, userId, async (current) => {
    if (current.deactivatedAt) return current;
    const change: UserChange = { deactivatedAt: isoNow(deps.clock), isAvailable: false };
    if (!(await commitChange(deps, current, change))) return LOST_RACE;
    changed = true;
    return { ...current, ...change };
  });
  return { user: presentUser(user), changed, activeJobId: user.activeJobId };
}

/**
 * Reads the user (consistently) and applies `decide` until it answers the user (its conditional write went
 * through, or nothing needed writing): a lost race re-reads the user and decides again. 404 for an unknown
 * user or one of another firm.
 */
function withUser(
  deps: Deps,
  firmId: string,
  userId: string,
  decide: (user: UserItem) => Promise<UserItem | LostRace>,
): Promise<UserItem> {
  return retryOnLostRace(
    async () => {
      const user = await getUserForUpdate(deps, firmId, userId);
      if (!user) throw new NotFoundError('User not found');
      return decide(user);
    },
    {
      attempts: CHANGE_ATTEMPTS,
      exhausted: () => new ConflictError('The user was changed concurrently; retry'),
    },
  );
}

/**
 * Writes a change; one that takes an active FIRM_ADMIN away also moves the firm's admin guard, after
 * checking that another active FIRM_ADMIN remains. False when a condition failed or a concurrent transaction
 * was in the way (re-read and retry).
 */
async function commitChange(deps: Deps, user: UserItem, change: UserChange): Promise<boolean> {
  const after: RoleState = { role: change.role ?? user.role, deactivatedAt: change.deactivatedAt ?? null };
  const items: TransactItem[] = [userChangeItem(deps, user, change)];
  if (removesActiveAdmin(user, after)) {
    const guard = await readAdminGuard(deps, user.firmId);
    const users = await listUsers(deps, user.firmId);
    if (activeAdminsExcept(users, user.id) === 0)
      throw new ConflictError('The firm must keep at least one active FIRM_ADMIN');
    items.push(adminGuardItem(deps, user.firmId, guard));
  }
  return (await writeConditionally(deps, items)).status === 'committed';
}

/** The signed-in user's own record (a deactivated user's token is refused before this runs). */
export async function currentUser(deps: Deps, principal: Principal): Promise<PublicUser> {
  if (principal.kind !== 'user') throw new ForbiddenError('Only a signed-in user has a user record');
  const user = await getUser(deps, principal.firmId, principal.userId);
  if (!user) throw new NotFoundError('User not found');
  return presentUser(user);
}
