// Runs before `npm test` (pre-script, after ensure-deps.mjs): the certificate tests need qpdf, pdftotext (Debian
// poppler-utils, which also brings pdftoppm) and a headless Chromium at /usr/bin/chromium; scripts/verify-chain.sh
// and the README's first steps, which the tests run as printed, need curl, jq, openssl and python3. Installs
// whichever is missing with apt-get (as root, or through sudo); when it cannot, says what to install and fails, so
// `npm test` never runs with a tool missing and no test is ever skipped for want of one.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

// Each tool: how the tests find it (a command on PATH, or the absolute path they launch) and its Debian package.
const tools = [
  { command: 'qpdf', pkg: 'qpdf' },
  { command: 'pdftotext', pkg: 'poppler-utils' },
  { command: 'pdftoppm', pkg: 'poppler-utils' },
  { command: '/usr/bin/chromium', pkg: 'chromium' },
  { command: 'curl', pkg: 'curl' },
  { command: 'jq', pkg: 'jq' },
  { command: 'openssl', pkg: 'openssl' },
  { command: 'python3', pkg: 'python3' },
];

const executable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};
const found = (command) =>
  command.startsWith('/')
    ? executable(command)
    : (process.env.PATH ?? '').split(delimiter).some((dir) => dir && executable(join(dir, command)));
const missingPackages = () => [...new Set(tools.filter((t) => !found(t.command)).map((t) => t.pkg))];

const fail = (why, packages) => {
  console.error(
    `npm test needs the Debian packages ${packages.join(', ')} (for ${tools
      .filter((t) => packages.includes(t.pkg))
      .map((t) => t.command)
      .join(', ')}) and ${why}.\n` +
      `Install them, e.g. \`sudo apt-get install -y ${packages.join(' ')}\`, then run npm test again.`,
  );
  process.exit(1);
};

const missing = missingPackages();
if (missing.length > 0) {
  const root = process.getuid?.() === 0;
  if (!found('apt-get')) fail('this machine has no apt-get to install them with', missing);
  if (!root && !found('sudo')) fail('installing them needs root or sudo', missing);
  console.error(`Installing the test tools with apt-get: ${missing.join(' ')}…`);
  const run = (args) => {
    const [command, ...rest] = root ? args : ['sudo', '-n', ...args];
    const result = spawnSync(command, rest, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0)
      fail(`\`${[command, ...rest].join(' ')}\` failed (exit ${result.status ?? result.signal})`, missing);
  };
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', ...missing]);
  const still = missingPackages();
  if (still.length > 0) fail('apt-get installed them but they are still not found', still);
}
