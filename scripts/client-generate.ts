/**
 * `npm run client:generate`: regenerates clients/typescript/schema.d.ts, the typed client's types. Writes the
 * OpenAPI description the route table generates (the document GET /openapi.json serves) to a file, then runs
 * openapi-typescript on it with its default options, as an integrator would on our description.
 * test/unit/client/typescript-client.test.ts fails when the committed file is not what this produces.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApi } from '../shared/openapi.js';

const ROOT = resolve(import.meta.dirname, '..');
export const CLIENT_TYPES = join(ROOT, 'clients/typescript/schema.d.ts');

/** What openapi-typescript, default options, makes of the description. */
export async function clientTypes(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'gls-openapi-'));
  try {
    const description = join(dir, 'openapi.json');
    writeFileSync(description, JSON.stringify(buildOpenApi(), null, 2));
    const { stdout } = await promisify(execFile)(
      join(ROOT, 'node_modules/.bin/openapi-typescript'),
      [description],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  writeFileSync(CLIENT_TYPES, await clientTypes());
  console.log(`wrote ${CLIENT_TYPES}`);
}
