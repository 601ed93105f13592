/**
 * A C2SP tlog-witness for the firms' verifiable logs (issue 31), for a regulator, a firm or anyone who wants to
 * hold the ledger to one history: it cosigns a log's checkpoint only if it is consistent with the last one it
 * cosigned for that log. docs/witness.md explains running it and handing its vkey to a firm.
 *
 *   npm run witness -- --state DIR --name NAME --log-vkey VKEY [--log-vkey VKEY ...] [--log-vkeys-file FILE]
 *                      [--listen HOST:PORT]
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadLogKeys, parseLogKeyFile } from '../shared/witness/log-keys.js';
import { createWitnessServer } from '../shared/witness/server.js';
import { lockStateDir } from '../shared/witness/state-lock.js';
import { WitnessStateStore } from '../shared/witness/state-store.js';
import { loadWitnessIdentity } from '../shared/witness/witness-key.js';

const HELP = `Usage: npm run witness -- [options]

A C2SP tlog-witness (https://c2sp.org/tlog-witness): POST /add-checkpoint cosigns a log's checkpoint
(cosignature/v1, Ed25519) only if it is consistent with the last checkpoint it cosigned for that log;
GET /<hex sha256 of origin>/checkpoint serves that checkpoint.

Options:
  --listen HOST:PORT      address to listen on (default 127.0.0.1:7380; port 0 picks a free port)
  --log-vkey ENTRY        a log to follow, repeatable: "<vkey>" (the origin is the vkey's name) or
                          "<origin> <vkey>"; a log may have several vkeys (types 0x01 Ed25519, 0x02 ECDSA P-256),
                          a checkpoint needs a valid signature of one of them
  --log-vkeys-file FILE   the same entries, one a line ('#' comments); may be combined with --log-vkey
  --state DIR             the state folder (required): the witness key (witness-key.pem, made on first start,
                          mode 0600), its name, the last cosigned checkpoint of each log, refused checkpoints;
                          one witness process per folder (witness.lock)
  --name NAME             the witness's name, e.g. witness.example.org/w1 (required on first start, then fixed)
  --help                  this text

On start it prints its vkey (type 0x04): give that to the firms that should gather its cosignatures.`;

function parseListen(text: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port > 65_535) throw new Error(`--listen ${text}: expected HOST:PORT`);
  return { host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      listen: { type: 'string', default: '127.0.0.1:7380' },
      'log-vkey': { type: 'string', multiple: true, default: [] },
      'log-vkeys-file': { type: 'string' },
      state: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  if (!values.state) throw new Error('--state DIR is required (see --help)');
  const stateDir = resolve(values.state);
  const { host, port } = parseListen(values.listen);
  const entries = [...values['log-vkey']];
  if (values['log-vkeys-file'])
    entries.push(...parseLogKeyFile(readFileSync(values['log-vkeys-file'], 'utf8')));
  const logs = await loadLogKeys(entries);

  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const lock = lockStateDir(stateDir);
  process.on('exit', () => lock.release());
  const identity = loadWitnessIdentity(stateDir, values.name);
  const store = new WitnessStateStore(stateDir);
  await store.init();

  const server = createWitnessServer({ logs, store, identity, stateDir });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ready());
  });
  const address = server.address();
  const shown = typeof address === 'object' && address ? `${address.address}:${address.port}` : values.listen;
  console.log(`witness ${identity.name}`);
  console.log(`vkey ${identity.vkey}`);
  console.log(`following ${[...logs.keys()].join(', ')}`);
  console.log(`listening on http://${shown}`);

  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(`witness: ${(error as Error).message}`);
  process.exit(1);
});
