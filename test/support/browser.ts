import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`/usr/bin/chromium`, installed by scripts/ensure-test-tools.mjs), headless, through
 * playwright-core: the one browser every page test drives (the console, the public verification page, the
 * offline evidence page). `extraArgs`: more Chromium switches (e.g. --host-resolver-rules for a host name).
 */
export function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
}
