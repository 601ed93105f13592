import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readOrCreateKeyFile } from '../../../shared/adapters/local/key-file.js';

describe('readOrCreateKeyFile', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'key-file-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the key once, never replaces it, and leaves no draft behind', () => {
    const file = join(dir, 'keys', 'signing.pem');
    expect(readOrCreateKeyFile(file, () => 'first')).toBe('first');
    expect(readOrCreateKeyFile(file, () => 'second')).toBe('first');
    expect(readdirSync(join(dir, 'keys'))).toEqual(['signing.pem']);
  });
});
