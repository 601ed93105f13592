// Runs before `npm start` and `npm test` (pre-scripts), on whatever Node the machine has: installs the locked
// dependencies when node_modules is missing or older than package-lock.json, so a fresh clone needs nothing
// but those two commands. The installed `node` devDependency then pins Node 22 for the scripts themselves.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json';
const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  console.error('Installing the locked dependencies…');
  // `npm install`, not `npm ci`: npm 11 leaves other platforms' optional packages (swc, esbuild bindings) out
  // of the lock it writes and `npm ci` then refuses that lock; `npm install` keeps every locked version.
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
