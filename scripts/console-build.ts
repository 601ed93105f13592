/**
 * Builds the web console (console/ -> console/dist) when it is stale: when console/dist/index.html is missing or
 * older than any file under console/ (the build output aside) or clients/typescript (the typed API client the
 * console compiles in). Nothing otherwise. Runs before `npm start` and `npm test` (package.json pre-scripts), and
 * from the console's browser tests (test/support/console.ts), so no one needs an extra command.
 *
 *   tsx scripts/console-build.ts            build if stale
 *   tsx scripts/console-build.ts --force    build regardless
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
const CONSOLE = join(ROOT, 'console');
export const CONSOLE_DIST = join(CONSOLE, 'dist');
const SOURCES = [CONSOLE, join(ROOT, 'clients/typescript')];

/** The newest modification time of any file below `dir`, the build output excluded. */
function newest(dir: string): number {
  let latest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === CONSOLE_DIST || entry.name === 'node_modules') continue;
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export function consoleIsStale(): boolean {
  const built = join(CONSOLE_DIST, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return SOURCES.some((dir) => newest(dir) > builtAt);
}

/** Runs `vite build` for the console when stale (or always with force); true when it built. */
export function buildConsoleIfStale(options: { force?: boolean; quiet?: boolean } = {}): boolean {
  if (!options.force && !consoleIsStale()) return false;
  if (!options.quiet) console.error('Building the web console (console/ -> console/dist)…');
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(CONSOLE, 'vite.config.ts')],
    {
      cwd: ROOT,
      // A production bundle whatever the caller's NODE_ENV (Jest sets test, which would select React's
      // development build).
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', options.quiet ? 'ignore' : 'inherit', 'inherit'],
    },
  );
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  buildConsoleIfStale({ force: process.argv.includes('--force') });
}
