import type { Role } from '../domain/auth/principal.js';
import type { Qualification } from '../domain/users/user-rules.js';
import type { Deps } from '../runtime/deps.js';
import { writeConditionally, type TransactItem } from './conditional-write.js';
import { queryAll, send, withoutKeys } from './dynamo.js';
import { keys, SK_PREFIX } from './keys.js';
import { skPrefixCondition, skPrefixValues } from './sk-prefix.js';

export interface UserItem {
  id: string;
  firmId: string;
  name: string;
  email: string;
  fcaRef: string | null;
  qualifications: Qualification[];
  role: Role;
  isAvailable: boolean;
  specialistVulnerability: boolean;
  invitedAt: string;
  activatedAt: string | null;
  deactivatedAt: string | null;
  activeJobId: string | null;
  /** OIDC subject linked on first sign-in; later tokens must carry the same one. */
  subject?: string;
}

/** The user and its unique e-mail index entry, both conditional on not existing yet. */
export function putUserItems(deps: Deps, user: UserItem): TransactItem[] {
  return [
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.user(user.firmId, user.id), ...user },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.userEmail(user.firmId, user.email), userId: user.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export async function getUser(deps: Deps, firmId: string, userId: string): Promise<UserItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.user(firmId, userId),
  });
  return Item ? (withoutKeys(Item) as UserItem) : null;
}

/** The user a unique index item (e-mail, OIDC subject) points to, or null when there is none. */
async function getUserVia(
  deps: Deps,
  firmId: string,
  indexKey: Record<string, string>,
): Promise<UserItem | null> {
  const { Item } = await send(deps.db, 'Get', { TableName: deps.tables.main, Key: indexKey });
  return Item ? getUser(deps, firmId, Item.userId as string) : null;
}

export function getUserByEmail(deps: Deps, firmId: string, email: string): Promise<UserItem | null> {
  return getUserVia(deps, firmId, keys.userEmail(firmId, email));
}

/** The user linked to an OIDC subject, or null when no user has signed in with it yet. */
export function getUserBySubject(deps: Deps, firmId: string, subject: string): Promise<UserItem | null> {
  return getUserVia(deps, firmId, keys.userSubject(firmId, subject));
}

/**
 * First sign-in: stamps activatedAt and links the OIDC subject (on the user and in a subject index, so a
 * later e-mail change at the identity provider still finds the user). A no-op when already linked.
 */
export async function activateUser(
  deps: Deps,
  user: UserItem,
  subject: string,
  at: string,
): Promise<UserItem> {
  const outcome = await writeConditionally(deps, [
    {
      Update: {
        TableName: deps.tables.main,
        Key: keys.user(user.firmId, user.id),
        UpdateExpression: 'SET activatedAt = :at, subject = :sub',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(subject)',
        ExpressionAttributeValues: { ':at': at, ':sub': subject },
      },
    },
    {
      Put: {
        TableName: deps.tables.main,
        Item: { ...keys.userSubject(user.firmId, subject), userId: user.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);
  if (outcome.status === 'committed') return { ...user, activatedAt: at, subject };
  // A concurrent first sign-in linked the user (or is doing so): answer with the user as stored.
  return (await getUser(deps, user.firmId, user.id)) ?? user;
}

/** The user, read strongly consistent (before a conditional change). */
export async function getUserForUpdate(deps: Deps, firmId: string, userId: string): Promise<UserItem | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.user(firmId, userId),
    ConsistentRead: true,
  });
  return Item ? (withoutKeys(Item) as UserItem) : null;
}

/**
 * Every user of the firm, deactivated ones included, in creation order (ids are ULIDs). Strongly consistent,
 * so a list right after a change shows it, and a count taken before a conditional write is current.
 */
export async function listUsers(deps: Deps, firmId: string): Promise<UserItem[]> {
  const items = await queryAll(deps.db, {
    TableName: deps.tables.main,
    KeyConditionExpression: `pk = :pk AND ${skPrefixCondition(':prefix')}`,
    ExpressionAttributeValues: { ':pk': keys.firmPk(firmId), ...skPrefixValues(':prefix', SK_PREFIX.user) },
    ConsistentRead: true,
  });
  return items.map((item) => withoutKeys(item) as unknown as UserItem);
}

/** Fields a user change may set. */
export type UserChange = Partial<
  Pick<UserItem, 'role' | 'specialistVulnerability' | 'isAvailable' | 'deactivatedAt'>
>;

/**
 * The write of a change to `user`, conditional on the user still being active and still having the role it
 * was read with (so a decision taken on that role cannot be overtaken by a concurrent role change).
 */
export function userChangeItem(deps: Deps, user: UserItem, change: UserChange): TransactItem {
  const names: Record<string, string> = { '#role': 'role' };
  const values: Record<string, unknown> = { ':null': null, ':readRole': user.role };
  const sets = Object.entries(change).map(([field, value], i) => {
    names[`#f${i}`] = field;
    values[`:v${i}`] = value;
    return `#f${i} = :v${i}`;
  });
  return {
    Update: {
      TableName: deps.tables.main,
      Key: keys.user(user.firmId, user.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression:
        'attribute_exists(pk) AND (attribute_not_exists(deactivatedAt) OR deactivatedAt = :null) AND #role = :readRole',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/**
 * The firm's admin guard: a version every change that takes an active FIRM_ADMIN away must move, conditional
 * on the version read before counting the remaining admins. Two such changes at once cannot both pass on
 * the same count, so a firm never loses its last active FIRM_ADMIN.
 */
export async function readAdminGuard(deps: Deps, firmId: string): Promise<number | null> {
  const { Item } = await send(deps.db, 'Get', {
    TableName: deps.tables.main,
    Key: keys.userAdminGuard(firmId),
    ConsistentRead: true,
  });
  return Item ? (Item.version as number) : null;
}

export function adminGuardItem(deps: Deps, firmId: string, readVersion: number | null): TransactItem {
  return {
    Put: {
      TableName: deps.tables.main,
      Item: { ...keys.userAdminGuard(firmId), version: (readVersion ?? 0) + 1 },
      ...(readVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: 'version = :version',
            ExpressionAttributeValues: { ':version': readVersion },
          }),
    },
  };
}
