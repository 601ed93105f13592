import { readFileSync } from 'node:fs';
import { nodeEvidenceCrypto } from '../shared/ledger/evidence-crypto-node.js';
import { verifyEvidenceBundle } from '../shared/ledger/evidence-verify.js';

/**
 * Offline verifier of evidence bundles (issue 15, part 5; docs/ledger-format.md, "Evidence bundles"):
 *
 *   npm run --silent verify-evidence -- bundle.json     (or: npx verify-evidence bundle.json, node bin/verify-evidence.mjs)
 *
 * Prints one JSON verdict on stdout. Exit code 0 only when everything verifies, 1 when anything fails (each
 * failure with its reason), 2 when the input cannot be read or is not JSON. `-` reads the bundle from stdin.
 * Runs as bin/verify-evidence.mjs, this file bundled by scripts/build-evidence-verifiers.ts with no dependency
 * but Node itself, so a clone needs no `npm install` to verify evidence.
 */

function unreadable(path: string, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stdout.write(
    `${JSON.stringify({ valid: false, error: 'UNREADABLE_INPUT', path, message }, null, 2)}\n`,
  );
  process.exit(2);
}

async function main(args: readonly string[]): Promise<void> {
  const paths = args.filter((a) => a !== '--');
  if (paths.length !== 1) {
    process.stderr.write('usage: verify-evidence <bundle.json | ->\n');
    process.exit(2);
  }
  const path = paths[0]!;
  let bundle: unknown;
  try {
    bundle = JSON.parse(readFileSync(path === '-' ? 0 : path, 'utf8'));
  } catch (error) {
    unreadable(path, error);
  }
  const verdict = await verifyEvidenceBundle(bundle, nodeEvidenceCrypto);
  process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
  process.exitCode = verdict.valid ? 0 : 1;
}

await main(process.argv.slice(2));
