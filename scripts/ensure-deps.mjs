// Runs before `npm start` and `npm test` (pre-scripts), on whatever Node the machine has: installs the locked
// dependencies with `npm ci` when node_modules is missing or older than package-lock.json, so a fresh clone needs
// nothing but those two commands. The installed `node` devDependency then pins Node 22 for the scripts themselves.
// The lock holds every platform's optional packages (swc, esbuild, resolver bindings), so `npm ci` accepts it on
// any machine; install scripts run only for the packages package.json's `allowScripts` approves.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const installed = 'node_modules/.package-lock.json';
const stale = !existsSync(installed) || statSync(installed).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  console.error('Installing the locked dependencies (npm ci)…');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: ['ignore', 'inherit', 'inherit'] });
}
