import { createHash, randomBytes } from 'node:crypto';

/**
 * API key format: `gls_` followed by 43 base64url characters (32 random bytes, 256 bits). Keys do not
 * expire; they are revoked. Only SHA-256(key) is stored: a key with that much entropy needs no slow hash.
 */
export const API_KEY_PREFIX = 'gls_';
const API_KEY_PATTERN = /^gls_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

/** What lists show to recognise a key: the prefix and the first 6 secret characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 6);
}
