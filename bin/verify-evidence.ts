import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { nodeEvidenceCrypto } from '../shared/ledger/evidence-crypto-node.js';
import { LogPolicyError, readLogPolicy } from '../shared/ledger/evidence-policy.js';
import { verifyEvidenceBundle } from '../shared/ledger/evidence-verify.js';
import { monitorStep, type MonitorState } from '../shared/ledger/log-monitor.js';

/**
 * Offline verifier of evidence bundles (issue 15, part 5; issue 31; docs/ledger-format.md, "Evidence bundles"):
 *
 *   verify-evidence [--witness <vkey>]... [--witnesses-needed <k>] [--since <old-checkpoint.txt>] <bundle.json | ->
 *   verify-evidence monitor --base <URL> --state <FILE> [--api-key <key> | --token <bearer>] [--witness ...]
 *
 * (npm run --silent verify-evidence -- ..., npx verify-evidence ..., node bin/verify-evidence.mjs ...)
 * Verifying prints one JSON verdict on stdout: exit 0 only when everything verifies, 1 when anything fails (each
 * failure with its reason), 2 when the input cannot be read. `--since` needs a bundle exported with
 * consistencyFrom=<the kept checkpoint's size>.
 * `monitor` fetches the log's checkpoint, checks its signatures against the vkeys pinned in the state file (the
 * first run pins GET /v1/ledger/log/vkeys: trust on first use, printed), checks consistency with the kept
 * checkpoint, and stores the new one atomically; on any inconsistency it exits 1 printing both signed
 * checkpoints (the proof of a split view); 2 on a usage, network or HTTP error. The credential: --api-key or the
 * GLS_API_KEY environment variable (x-service-key header), or --token / GLS_TOKEN (a bearer token).
 * Runs as bin/verify-evidence.mjs, this file bundled by scripts/build-evidence-verifiers.ts with no dependency
 * but Node itself, so a clone needs no `npm install` to verify evidence.
 */

const USAGE = `usage: verify-evidence [--witness <vkey>]... [--witnesses-needed <k>] [--since <checkpoint.txt>] <bundle.json | ->
       verify-evidence monitor --base <URL> --state <FILE> [--api-key <key> | --token <bearer>] [--witness <vkey>]... [--witnesses-needed <k>]
`;

function usage(message?: string): never {
  if (message) process.stderr.write(`verify-evidence: ${message}\n`);
  process.stderr.write(USAGE);
  process.exit(2);
}

function unreadable(path: string, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  process.stdout.write(
    `${JSON.stringify({ valid: false, error: 'UNREADABLE_INPUT', path, message }, null, 2)}\n`,
  );
  process.exit(2);
}

const OPTIONS = {
  witness: { type: 'string', multiple: true },
  'witnesses-needed': { type: 'string' },
  since: { type: 'string' },
  base: { type: 'string' },
  state: { type: 'string' },
  'api-key': { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The witness policy of --witness / --witnesses-needed, read as the offline page reads its inputs. */
function witnessPolicy(values: { witness?: string[]; 'witnesses-needed'?: string }) {
  try {
    return readLogPolicy({ witnesses: values.witness, witnessesNeeded: values['witnesses-needed'] });
  } catch (error) {
    if (!(error instanceof LogPolicyError)) throw error;
    usage(`--${error.field === 'witness' ? 'witness' : 'witnesses-needed'}: ${error.message}`);
  }
}

async function verify(paths: string[], values: ReturnType<typeof parse>['values']): Promise<void> {
  if (paths.length !== 1) usage();
  if (values.base || values.state) usage('--base and --state belong to the monitor command');
  const path = paths[0]!;
  let bundle: unknown;
  try {
    bundle = JSON.parse(readFileSync(path === '-' ? 0 : path, 'utf8'));
  } catch (error) {
    unreadable(path, error);
  }
  let since: string | undefined;
  if (values.since !== undefined) {
    try {
      since = readFileSync(values.since, 'utf8');
    } catch (error) {
      unreadable(values.since, error);
    }
  }
  const verdict = await verifyEvidenceBundle(bundle, nodeEvidenceCrypto, { ...witnessPolicy(values), since });
  process.stdout.write(`${JSON.stringify(verdict, null, 2)}\n`);
  process.exitCode = verdict.valid ? 0 : 1;
}

async function monitor(values: ReturnType<typeof parse>['values']): Promise<void> {
  const { base, state: statePath } = values;
  if (!base || !statePath) usage('monitor needs --base and --state');
  const apiKey = values['api-key'] ?? process.env.GLS_API_KEY;
  const token = values.token ?? process.env.GLS_TOKEN;
  if (!apiKey && !token)
    usage('monitor needs a credential: --api-key (or GLS_API_KEY) or --token (or GLS_TOKEN)');
  const headers: Record<string, string> = apiKey
    ? { 'x-service-key': apiKey }
    : { authorization: `Bearer ${token}` };
  const get = async (path: string): Promise<string> => {
    const url = `${base.replace(/\/+$/, '')}${path}`;
    let response: Response;
    try {
      response = await fetch(url, { headers });
    } catch (error) {
      process.stderr.write(`verify-evidence monitor: GET ${url} failed: ${(error as Error).message}\n`);
      process.exit(2);
    }
    const body = await response.text();
    if (!response.ok) {
      process.stderr.write(`verify-evidence monitor: GET ${url} answered ${response.status}: ${body}\n`);
      process.exit(2);
    }
    return body;
  };
  let state: MonitorState;
  try {
    state = JSON.parse(readFileSync(statePath, 'utf8')) as MonitorState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') unreadable(statePath, error);
    const vkeys = (await get('/v1/ledger/log/vkeys')).split('\n').filter((line) => line !== '');
    process.stderr.write(
      `verify-evidence monitor: no state yet; trusting these log vkeys on first use (compare them with what the firm publishes):\n${vkeys.join('\n')}\n`,
    );
    state = { vkeys, checkpoint: null };
  }
  const fetched = await get('/v1/ledger/log/checkpoint');
  const sizeOf = (note: string) => Number(note.split('\n')[1]);
  const keptSize = state.checkpoint === null ? null : sizeOf(state.checkpoint);
  const fetchedSize = sizeOf(fetched);
  const proof =
    keptSize !== null && Number.isSafeInteger(fetchedSize) && fetchedSize > keptSize
      ? await get(`/v1/ledger/log/consistency?from=${keptSize}&to=${fetchedSize}`)
      : null;
  const result = await monitorStep(state, fetched, proof, witnessPolicy(values));
  if (!result.ok) {
    process.stdout.write(
      `${JSON.stringify({ consistent: false, problem: result.problem }, null, 2)}\n` +
        `--- kept checkpoint ---\n${result.kept ?? '(none)\n'}--- fetched checkpoint ---\n${result.fetched}`,
    );
    process.exitCode = 1;
    return;
  }
  const temporary = `${statePath}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ ...state, checkpoint: fetched }, null, 2)}\n`);
  renameSync(temporary, statePath);
  const { origin, size } = result.checkpoint;
  process.stdout.write(
    `${JSON.stringify({ consistent: true, origin, size, previousSize: result.previousSize, cosignedBy: result.cosignedBy }, null, 2)}\n`,
  );
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    usage((error as Error).message);
  }
}

async function main(args: string[]): Promise<void> {
  const { values, positionals } = parse(args);
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals[0] === 'monitor') return monitor(values);
  return verify(positionals, values);
}

await main(process.argv.slice(2));
