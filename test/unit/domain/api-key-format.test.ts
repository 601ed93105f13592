import { createHash } from 'node:crypto';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from '../../../shared/domain/auth/api-key-format.js';
import { isId, newId } from '../../../shared/ids.js';

describe('API key format', () => {
  it('generates distinct, well-formed keys of 256 bits', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    }
  });

  it('stores the SHA-256 hex of the key and shows a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(displayPrefix(key)).toBe(key.slice(0, 10));
  });

  it('rejects malformed keys before any lookup', () => {
    for (const bad of ['', 'gls_', 'gls_short', `xyz_${'a'.repeat(43)}`, `gls_${'a'.repeat(42)}!`]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });
});

describe('identifiers', () => {
  it('are prefixed ULIDs that sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('record'));
    expect(ids.every((id) => isId('record', id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(isId('firm', ids[0]!)).toBe(false);
  });
});
