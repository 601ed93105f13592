import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The contents of a local key file, created with `create()` first if there is none. Several processes (the
 * embedded stack's instances) may start at once: the key is written whole to a file of its own, then linked into
 * place, which fails if another process got there first. So a key is never replaced, and nobody ever reads a
 * half-written one (a plain `wx` write is visible, empty or partial, while it is being written).
 */
export function readOrCreateKeyFile(keyFile: string, create: () => string | Uint8Array): string {
  if (!existsSync(keyFile)) {
    mkdirSync(dirname(keyFile), { recursive: true });
    const draft = `${keyFile}.${randomUUID()}.tmp`;
    writeFileSync(draft, create(), { mode: 0o600, flag: 'wx' });
    try {
      linkSync(draft, keyFile);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  return readFileSync(keyFile, 'utf8');
}
