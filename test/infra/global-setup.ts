import { buildConsoleIfStale } from '../../scripts/console-build.ts'; // loaded by Jest through CommonJS, so the real file name

/** Synthesis uploads console/dist (lib/console.ts): build it when any console source is newer. */
export default function globalSetup(): void {
  buildConsoleIfStale({ quiet: true });
}
