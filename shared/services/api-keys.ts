import { displayPrefix, generateApiKey, hashApiKey } from '../domain/auth/api-key-format.js';
import { NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyItem } from '../store/api-key-store.js';

export interface NewApiKey {
  item: ApiKeyItem;
  key: string;
  keyHash: string;
}

/** A fresh key for a firm; the caller stores `item` with `keyHash` and shows `key` once. */
export function mintApiKey(deps: Deps, firmId: string, name: string): NewApiKey {
  const key = generateApiKey();
  return {
    key,
    keyHash: hashApiKey(key),
    item: {
      id: newId('apiKey'),
      firmId,
      name,
      keyPrefix: displayPrefix(key),
      createdAt: isoNow(deps.clock),
      revokedAt: null,
    },
  };
}

export async function issueApiKey(deps: Deps, firmId: string, name: string) {
  const minted = mintApiKey(deps, firmId, name);
  await createApiKey(deps, minted.item, minted.keyHash);
  return { id: minted.item.id, key: minted.key, name, createdAt: minted.item.createdAt };
}

export async function activeApiKeys(deps: Deps, firmId: string) {
  const keys = await listApiKeys(deps, firmId);
  return keys
    .filter((k) => k.revokedAt === null)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map(({ id, name, keyPrefix, createdAt }) => ({ id, name, keyPrefix, createdAt }));
}

export async function revokeKey(deps: Deps, firmId: string, keyId: string): Promise<void> {
  if (!(await revokeApiKey(deps, firmId, keyId, isoNow(deps.clock))))
    throw new NotFoundError('API key not found');
}
