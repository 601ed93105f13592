import { displayPrefix, generateApiKey, hashApiKey } from '../domain/auth/api-key-format.js';
import type { ApiKeyScope } from '../domain/auth/principal.js';
import { NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { createApiKey, listApiKeys, revokeApiKey, scopeOf, type ApiKeyItem } from '../store/api-key-store.js';

export interface NewApiKey {
  item: ApiKeyItem;
  key: string;
  keyHash: string;
}

/** A fresh key for a firm; the caller stores `item` with `keyHash` and shows `key` once. */
export function mintApiKey(deps: Deps, firmId: string, name: string, scope: ApiKeyScope = 'full'): NewApiKey {
  const key = generateApiKey();
  return {
    key,
    keyHash: hashApiKey(key),
    item: {
      id: newId('apiKey'),
      firmId,
      name,
      keyPrefix: displayPrefix(key),
      scope,
      createdAt: isoNow(deps.clock),
      revokedAt: null,
    },
  };
}

/** A new key: `full` (the default, acts for the firm) or `auditor` (read-only: the records and the log). */
export async function issueApiKey(deps: Deps, firmId: string, name: string, scope: ApiKeyScope = 'full') {
  const minted = mintApiKey(deps, firmId, name, scope);
  await createApiKey(deps, minted.item, minted.keyHash);
  return { id: minted.item.id, key: minted.key, name, scope, createdAt: minted.item.createdAt };
}

export async function activeApiKeys(deps: Deps, firmId: string) {
  const keys = await listApiKeys(deps, firmId);
  return keys
    .filter((k) => k.revokedAt === null)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((k) => ({
      id: k.id,
      name: k.name,
      keyPrefix: k.keyPrefix,
      scope: scopeOf(k),
      createdAt: k.createdAt,
    }));
}

export async function revokeKey(deps: Deps, firmId: string, keyId: string): Promise<void> {
  if (!(await revokeApiKey(deps, firmId, keyId, isoNow(deps.clock))))
    throw new NotFoundError('API key not found');
}
