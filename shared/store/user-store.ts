import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Role } from '../domain/auth/principal.js';
import type { Deps } from '../runtime/deps.js';
import { withoutKeys } from './dynamo.js';
import { keys } from './keys.js';
import type { TransactItem } from './ledger-store.js';

export const QUALIFICATIONS = ['CFA', 'CFP', 'DIP_PFS', 'CISI', 'IMC'] as const;
export type Qualification = (typeof QUALIFICATIONS)[number];

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
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.user(firmId, userId) }),
  );
  return Item ? (withoutKeys(Item) as UserItem) : null;
}

export async function getUserByEmail(deps: Deps, firmId: string, email: string): Promise<UserItem | null> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.userEmail(firmId, email) }),
  );
  return Item ? getUser(deps, firmId, Item.userId as string) : null;
}

/** The user linked to an OIDC subject, or null when no user has signed in with it yet. */
export async function getUserBySubject(
  deps: Deps,
  firmId: string,
  subject: string,
): Promise<UserItem | null> {
  const { Item } = await deps.db.send(
    new GetCommand({ TableName: deps.tables.main, Key: keys.userSubject(firmId, subject) }),
  );
  return Item ? getUser(deps, firmId, Item.userId as string) : null;
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
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
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
        ],
      }),
    );
    return { ...user, activatedAt: at, subject };
  } catch (error) {
    if (error instanceof TransactionCanceledException)
      return (await getUser(deps, user.firmId, user.id)) ?? user;
    throw error;
  }
}

/** The public representation of a user (no storage or identity-provider attributes). */
export function publicUser(user: UserItem): Omit<UserItem, 'subject'> {
  const { subject: _subject, ...rest } = user;
  return rest;
}
