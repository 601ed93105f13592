import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The web console (issue 16): served under /console/ by the local stack (bin/local.ts) and by CloudFront in AWS
 * (lib/console.ts). Vite compiles TSX itself (Oxc, automatic JSX runtime), so no framework plugin is needed.
 * Build: `npx vite build --config console/vite.config.ts` (npm start and npm test build it when stale).
 */
export default defineConfig({
  root: here,
  base: '/console/',
  // The API client is shared with Node callers; it lives outside this folder.
  server: { fs: { allow: [join(here, '..')] } },
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: join(here, 'dist'),
    emptyOutDir: true,
    // The CSP forbids inline script: never inline the module preload helper or small assets as data: URLs
    // (data: is not an allowed source either).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: true,
    rolldownOptions: {
      // react-router marks its modules "use client" (a server-components hint): meaningless in a browser bundle.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
