import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { assertDescribed } from '../support/contract.js';
import { ROOT } from '../support/local-stack.js';
import { api, stack } from './helpers.js';

/*
 * Issue 33, part 1: the README's first steps run as printed. The shell blocks of "First steps against the local
 * stack" and of "The typed client" (with its TypeScript example) are read from README.md itself, so an edit to the
 * README changes what runs, and each command is run with bash against the shared test stack, exactly as printed,
 * with three mechanical changes only:
 *  - the port: the README's `localhost:3000` becomes the test stack's address (it runs on a free port);
 *  - the placeholders: `gls_…` and `firm_…` are filled from the output of the step that prints them
 *    (`firm create`'s apiKey and firm id), as a reader copies them;
 *  - the environment: DATA_DIR names the test stack's data (ledgerctl finds the stack through it), and `curl` on
 *    PATH is a recorder that runs the real curl with the same arguments plus `--dump-header` to a file, so the test
 *    sees every answer's status and headers (also the calls scripts/verify-chain.sh makes).
 * Shell variables a step assigns (KEY=…, TOKEN=$(…)) are assigned again, with their values, before each later
 * step, as they live on in a reader's shell. Every command must exit 0 and every HTTP answer be 2xx; each step then
 * has an expectation below (the fields the README implies), and a step without one, or an expectation without a
 * step, fails the test: a new README step needs its expectation here.
 */

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The text under a heading, up to the next heading of the same or a higher level (fenced code aside). */
function section(heading: string): string {
  const lines = README.split('\n');
  let fenced = false;
  const headings = lines.map((line) => {
    if (line.startsWith('```')) fenced = !fenced;
    return fenced ? 0 : (/^(#+)\s/.exec(line)?.[1]!.length ?? 0);
  });
  const start = lines.findIndex((line, i) => headings[i]! > 0 && line.replace(/^#+\s+/, '') === heading);
  if (start < 0) throw new Error(`README.md has no heading "${heading}"`);
  const end = headings.findIndex((level, i) => i > start && level > 0 && level <= headings[start]!);
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The fenced code blocks of a text in one of the languages, in order. */
function blocks(text: string, languages: string[]): string[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)]
    .filter(([, language]) => languages.includes(language!))
    .map(([, , body]) => body!);
}

/** The commands of a shell block: continuation lines joined, blank and comment-only lines left out. */
function commands(block: string): string[] {
  const joined = block.replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
}

const SHELL = ['bash', 'sh', 'shell'];
const firstSteps = section('First steps against the local stack');
const typedClient = section('The typed client');
const typescriptExample = blocks(typedClient, ['ts', 'typescript']);
const steps = [
  ...blocks(firstSteps, SHELL).flatMap(commands),
  ...blocks(typedClient, SHELL).flatMap(commands),
];

/** The HTTP request a plain `curl` step makes (method and path), e.g. `PATCH /v1/firm/me/settings`. */
function requestOf(command: string): string | null {
  if (!command.startsWith('curl ')) return null;
  const words = command.split(/\s+/);
  const x = words.findIndex((w) => w === '-X' || w === '--request');
  const data = words.some((w) => /^(-d|--data\S*)$/.test(w));
  const url = words.find((w) => /^(https?:\/\/)?localhost:\d+\//.test(w));
  if (!url) throw new Error(`No localhost URL in ${command}`);
  const method = x >= 0 ? words[x + 1]! : data ? 'POST' : 'GET';
  return `${method} ${new URL(url.startsWith('http') ? url : `http://${url}`).pathname}`;
}

interface CurlCall {
  args: string[];
  status: number;
  headers: Headers;
}

interface Run {
  command: string;
  code: number | null;
  stdout: string;
  stderr: string;
  curls: CurlCall[];
  /** The value a `NAME=…` step assigned. */
  assigned?: string;
}

/** What earlier steps established: placeholder values, shell variables, and what the service said. */
const state = {
  placeholders: new Map<string, string>(),
  variables: new Map<string, string>(),
  firmId: '',
  apiKey: '',
  plan: '',
  settingsChanged: {} as Record<string, unknown>,
  ledgerTotal: 0,
};

const json = (run: Run): any => JSON.parse(run.stdout);

interface Expectation {
  step: string;
  matches: (command: string) => boolean;
  check: (run: Run) => void | Promise<void>;
}

const request = (wanted: string) => (command: string) => requestOf(command) === wanted;

const EXPECTATIONS: Expectation[] = [
  {
    step: 'ledgerctl firm create prints the firm, its admin and an API key',
    matches: (c) => /ledgerctl -- firm create\b/.test(c),
    check: (run) => {
      const out = json(run);
      expect(Object.keys(out).sort()).toEqual(['admin', 'apiKey', 'firm']);
      expect(out.firm.id).toMatch(/^firm_\w+$/);
      expect(out.firm.name).toBe(/--name "([^"]+)"/.exec(run.command)?.[1]);
      expect(out.firm.plan).toBe(/--plan (\w+)/.exec(run.command)?.[1]);
      expect(out.admin).toMatchObject({
        email: /--admin-email (\S+)/.exec(run.command)?.[1],
        role: 'FIRM_ADMIN',
      });
      expect(out.apiKey).toMatch(/^gls_[\w-]+$/);
      state.firmId = out.firm.id;
      state.apiKey = out.apiKey;
      state.plan = out.firm.plan;
      state.placeholders.set('firm_…', out.firm.id);
      state.placeholders.set('gls_…', out.apiKey);
    },
  },
  {
    step: 'KEY holds the printed API key',
    matches: (c) => /^KEY=/.test(c),
    check: (run) => expect(run.assigned).toBe(state.apiKey),
  },
  {
    step: 'GET /v1/firm/me answers the firm',
    matches: request('GET /v1/firm/me'),
    check: (run) => expect(json(run)).toMatchObject({ id: state.firmId, plan: state.plan }),
  },
  {
    step: 'PATCH /v1/firm/me/settings answers the settings with the change',
    matches: request('PATCH /v1/firm/me/settings'),
    check: (run) => {
      const sent = JSON.parse(/-d '([^']*)'/.exec(run.command)![1]!) as Record<string, unknown>;
      expect(Object.keys(sent).length).toBeGreaterThan(0);
      expect(json(run)).toMatchObject(sent);
      state.settingsChanged = sent;
    },
  },
  {
    step: 'GET /v1/ledger/records lists the FIRM_SETTINGS_UPDATED record of that change',
    matches: request('GET /v1/ledger/records'),
    check: (run) => {
      const page = json(run);
      const updated = page.data.filter((r: any) => r.eventType === 'FIRM_SETTINGS_UPDATED');
      expect(updated).toHaveLength(1);
      expect(updated[0].firmId).toBe(state.firmId);
      const changes = Object.fromEntries(
        updated[0].documentMetadata.changes.map((c: { field: string; to: unknown }) => [c.field, c.to]),
      );
      expect(changes).toEqual(state.settingsChanged);
      state.ledgerTotal = page.pagination.total;
    },
  },
  {
    step: 'TOKEN holds a bearer token (a JWT) from ledgerctl token',
    matches: (c) => /^TOKEN=\$\(.*ledgerctl -- token\b/.test(c),
    check: (run) => expect(run.assigned).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/),
  },
  {
    step: "GET /v1/firm/me/stats with the token counts the firm's records",
    matches: request('GET /v1/firm/me/stats'),
    check: (run) => {
      expect(run.command).toContain('Authorization: Bearer $TOKEN');
      expect(json(run)).toMatchObject({ recordCount: state.ledgerTotal, jobCount: expect.any(Number) });
    },
  },
  {
    step: 'scripts/verify-chain.sh verifies the whole chain',
    matches: (c) => /\bscripts\/verify-chain\.sh\b/.test(c),
    check: (run) => {
      expect(run.stdout).toContain(`OK: ${state.ledgerTotal} records of ${state.firmId} verified`);
      // The records, the signing key and its history, each 200.
      expect(run.curls.length).toBeGreaterThanOrEqual(3);
    },
  },
  {
    step: 'the typed-client example reports an incident and prints its id and the ledger size',
    matches: (c) => /\btsx example\.ts\b/.test(c),
    check: async (run) => {
      const [id, total, ...rest] = run.stdout.trim().split(/\s+/);
      expect(rest).toEqual([]);
      expect(id).toMatch(/^inc_\w+$/);
      const incident = await api('GET', `/v1/incidents/${id}`, { key: state.apiKey });
      expect(incident.status).toBe(200);
      expect(incident.body.title).toBe(/title: '([^']+)'/.exec(typescriptExample[0]!)?.[1]);
      const ledger = await api('GET', '/v1/ledger/records?pageSize=1', { key: state.apiKey });
      expect(ledger.status).toBe(200);
      expect(Number(total)).toBe(ledger.body.pagination.total);
      expect(Number(total)).toBeGreaterThan(state.ledgerTotal);
    },
  },
];

/** The test stack's host:port, for the README's localhost:3000. */
const host = new URL(stack.baseUrl).host;
const workDir = mkdtempSync(join(tmpdir(), 'gls-readme-'));
const curlLog = join(workDir, 'curl');
const shimDir = join(workDir, 'bin');

/** The real curl, found on PATH as bash would find it. */
function realCurl(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, 'curl'), constants.X_OK);
      return join(dir, 'curl');
    } catch {
      // Not here.
    }
  }
  throw new Error('curl is not installed (scripts/ensure-test-tools.mjs installs it)');
}

beforeAll(() => {
  for (const dir of [curlLog, shimDir]) mkdirSync(dir);
  writeFileSync(
    join(shimDir, 'curl'),
    [
      '#!/usr/bin/env bash',
      '# Records the arguments and the answer headers of each call, then runs the real curl with the same arguments.',
      'record="$README_CURL_LOG/$(date +%s%N)-$$"',
      'printf "%s\\0" "$@" > "$record.args"',
      `exec ${JSON.stringify(realCurl())} --dump-header "$record.headers" "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
});

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The curl calls recorded since the last step, oldest first, and clears the record. */
function takeCurlCalls(): CurlCall[] {
  const records = readdirSync(curlLog)
    .filter((name) => name.endsWith('.args'))
    .sort()
    .map((name) => name.slice(0, -'.args'.length));
  const calls = records.map((record) => {
    const args = readFileSync(join(curlLog, `${record}.args`), 'utf8')
      .split('\0')
      .slice(0, -1);
    // The last response of the dump (after any 100 Continue); none when curl reached no server (status 0).
    const file = join(curlLog, `${record}.headers`);
    if (!existsSync(file)) return { args, status: 0, headers: new Headers() };
    const dump = readFileSync(file, 'utf8')
      .trim()
      .split(/\r?\n\r?\n/)
      .pop()!;
    const [statusLine, ...headerLines] = dump.split(/\r?\n/);
    const headers = new Headers();
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    return { args, status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine!)?.[1]), headers };
  });
  for (const name of readdirSync(curlLog)) rmSync(join(curlLog, name));
  return calls;
}

/** The step as the test runs it: the test stack's port, and the placeholders filled. */
function asRun(command: string): string {
  const ported = command.replaceAll('localhost:3000', host);
  return ported.replace(/\b[a-z]+_…/g, (placeholder) => {
    const value = state.placeholders.get(placeholder);
    if (!value) throw new Error(`No earlier step printed a value for ${placeholder}`);
    return value;
  });
}

/** The variable a step assigns when it is a bare assignment (`KEY=…`, `TOKEN=$(…)`), else null. */
function assignedBy(command: string): string | null {
  const [, name, value] = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(command) ?? [];
  if (!name || value === undefined) return null;
  // Nothing but a comment may follow the value, else the assignment is a command's environment.
  const rest = value.startsWith('$(') ? value.slice(value.lastIndexOf(')') + 1) : value.replace(/^\S*/, '');
  return /^\s*(#.*)?$/.test(rest) ? name : null;
}

function run(command: string): Run {
  const assignment = assignedBy(command);
  const variables = [...state.variables].map(
    ([name, value]) => `${name}='${value.replaceAll("'", `'\\''`)}'`,
  );
  const script = [
    'set -euo pipefail',
    ...variables,
    asRun(command),
    ...(assignment ? [`printf '%s' "$${assignment}"`] : []),
  ].join('\n');
  const result = spawnSync('bash', ['-c', script], {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${shimDir}${delimiter}${process.env.PATH ?? ''}`,
      DATA_DIR: stack.dataDir,
      README_CURL_LOG: curlLog,
    },
    encoding: 'utf8',
    timeout: 90_000,
  });
  const outcome: Run = {
    command,
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    curls: takeCurlCalls(),
  };
  if (assignment && result.status === 0) {
    outcome.assigned = result.stdout;
    outcome.stdout = '';
    state.variables.set(assignment, result.stdout);
  }
  return outcome;
}

/** Exit 0, every HTTP answer 2xx, and a plain curl step's answer as /openapi.json describes it. */
async function expectSucceeded(outcome: Run): Promise<void> {
  if (outcome.code !== 0)
    throw new Error(`${outcome.command}\nexited ${outcome.code}:\n${outcome.stderr}\n${outcome.stdout}`);
  const failed = outcome.curls.filter((call) => call.status < 200 || call.status > 299);
  expect(failed.map((call) => `${call.status} ${call.args.join(' ')}`)).toEqual([]);
  const plain = requestOf(outcome.command);
  if (plain) {
    expect(outcome.curls).toHaveLength(1);
    const [method, path] = plain.split(' ') as [string, string];
    await assertDescribed(stack.baseUrl, {
      method,
      path,
      status: outcome.curls[0]!.status,
      headers: outcome.curls[0]!.headers,
      text: outcome.stdout,
      body: JSON.parse(outcome.stdout),
    });
  }
}

describe('README: the first steps and the typed client run as printed', () => {
  it('finds the steps, and an expectation for each step and a step for each expectation', () => {
    expect(steps.length).toBeGreaterThanOrEqual(EXPECTATIONS.length);
    expect(typescriptExample).toHaveLength(1);
    const unmatched = steps.filter((c) => EXPECTATIONS.filter((e) => e.matches(c)).length !== 1);
    expect(unmatched).toEqual([]);
    const unused = EXPECTATIONS.filter((e) => !steps.some((c) => e.matches(c))).map((e) => e.step);
    expect(unused).toEqual([]);
  });

  for (const command of steps) {
    it(`runs: ${command}`, async () => {
      const expectation = EXPECTATIONS.find((e) => e.matches(command));
      expect(expectation).toBeDefined();
      // The typed client's command runs the example saved where the README says (see its prose).
      const file = /\btsx (\S+\.ts)\b/.exec(command)?.[1];
      if (file) writeFileSync(join(ROOT, file), typescriptExample[0]!.replaceAll('localhost:3000', host));
      try {
        const outcome = run(command);
        await expectSucceeded(outcome);
        await expectation!.check(outcome);
      } finally {
        if (file) rmSync(join(ROOT, file), { force: true });
      }
    });
  }
});
