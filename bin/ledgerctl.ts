/**
 * Operator CLI. Onboards firms and issues API keys (the interface has no endpoint for onboarding) and mints
 * development tokens for the local stack. Every command prints exactly one JSON object on stdout.
 *
 *   ledgerctl firm create --name N --frn 123456 --plan BOTH --admin-name N --admin-email E [--admin-fca-ref R]
 *   ledgerctl api-key create --firm F --name N
 *   ledgerctl token --firm F --email E [--ttl SECONDS]        (local stack only)
 *   ledgerctl backfill counters [--firm F] [--after F]   (issue 14: counters, job markers, reporting aggregates)
 *   ledgerctl signing-key show
 *   ledgerctl signing-key rotate [--lead-seconds S]
 *   ledgerctl signing-key revoke --key FINGERPRINT --from TIME [--lead-seconds S]
 *     (AWS: also --immutable-bucket NAME; the new key is the stage's next CDK-made KMS key, docs/deploy.md)
 *   ledgerctl seed (--firm F | --create [--name N]) --records N --jobs M [--days D] [--incidents I]   (bulk history, issue 14)
 *   ledgerctl backfill indexes [--firm F] [--position P] [--max-items N]
 *     (issue 14: list-index attributes on items written before the indexes; resumable from the printed `next`)
 *   ledgerctl recover ledger (--firm F | --all) [--force] [--max-records N]
 *     (issue 32: a lost ledger rebuilt from its immutable copies; resumable; bin/ledgerctl/recover.ts)
 *
 * Target: the local stack found through DATA_DIR (default .data; `npm start` must be running), or AWS with
 * --stage STAGE and the usual AWS credentials and region.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as z from 'zod';
import { DevIssuer } from '../shared/adapters/local/dev-issuer.js';
import { KmsSigner } from '../shared/adapters/aws/kms-signer.js';
import { ServiceError } from '../shared/errors.js';
import { systemClock } from '../shared/ports/clock.js';
import type { Deps } from '../shared/runtime/deps.js';
import {
  createLocalDeps,
  createLocalSigningKey,
  DEV_AUDIENCE,
  DEV_FIRM_CLAIM,
  DEV_ISSUER,
  localPaths,
  type LocalStackInfo,
} from '../shared/runtime/local-deps.js';
import { OnboardFirm } from '../shared/schemas/firm.js';
import { issueApiKey } from '../shared/services/api-keys.js';
import { backfillCounters } from '../shared/services/counters-backfill.js';
import { onboardFirm } from '../shared/services/onboarding.js';
import { seedFirm } from '../shared/services/seed/seed-firm.js';
import { createDocumentClient } from '../shared/store/dynamo.js';
import { getFirm } from '../shared/store/firm-store.js';
import {
  backfillIndexes,
  decodePosition,
  encodePosition,
  type BackfillPosition,
} from '../shared/store/index-backfill.js';
import { recoverCommand } from './ledgerctl/recover.js';
import { getUserByEmail } from '../shared/store/user-store.js';
import { tableName } from '../shared/store/tables.js';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { S3ObjectStore } from '../shared/adapters/aws/s3-object-store.js';
import { listStageKeys, nextUnusedKey } from '../shared/adapters/aws/kms-stage-keys.js';
import { operatorBudgets, stageSigningKeyAlias } from '../shared/runtime/config.js';
import { loadKeyHistory } from '../shared/services/key-history.js';
import {
  DEFAULT_ROTATION_LEAD_SECONDS,
  revokeSigningKey,
  rotateSigningKey,
  type NewSigningKey,
} from '../shared/services/signing-key-admin.js';

class UsageError extends Error {}

const USAGE = `usage:
  ledgerctl firm create --name NAME --frn FRN --plan LEDGER|PRINCIPAL|BOTH --admin-name NAME --admin-email EMAIL [--admin-fca-ref REF]
  ledgerctl api-key create --firm FIRM_ID --name NAME
  ledgerctl token --firm FIRM_ID --email EMAIL [--ttl SECONDS]
  ledgerctl backfill counters [--firm FIRM_ID] [--after FIRM_ID]
  ledgerctl signing-key show
  ledgerctl signing-key rotate [--lead-seconds SECONDS]
  ledgerctl signing-key revoke --key FINGERPRINT --from ISO_TIME [--lead-seconds SECONDS]
  ledgerctl seed (--firm FIRM_ID | --create [--name NAME]) --records N --jobs M [--days D] [--incidents I]
  ledgerctl backfill indexes [--firm FIRM_ID] [--position NEXT] [--max-items N]
  ledgerctl recover ledger (--firm FIRM_ID | --all) [--force] [--max-records N]
options: --stage STAGE (AWS; default: the local stack in DATA_DIR); with --stage, signing-key rotate and
  revoke, seed and recover ledger also need --immutable-bucket NAME (the stack's ImmutableBucketName output)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: 'string' },
    frn: { type: 'string' },
    plan: { type: 'string' },
    'admin-name': { type: 'string' },
    'admin-email': { type: 'string' },
    'admin-fca-ref': { type: 'string' },
    firm: { type: 'string' },
    email: { type: 'string' },
    ttl: { type: 'string' },
    stage: { type: 'string' },
    key: { type: 'string' },
    from: { type: 'string' },
    'lead-seconds': { type: 'string' },
    'immutable-bucket': { type: 'string' },
    after: { type: 'string' },
    position: { type: 'string' },
    'max-items': { type: 'string' },
    records: { type: 'string' },
    jobs: { type: 'string' },
    days: { type: 'string' },
    incidents: { type: 'string' },
    create: { type: 'boolean' },
    all: { type: 'boolean' },
    force: { type: 'boolean' },
    'max-records': { type: 'string' },
    'public-base-url': { type: 'string' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function localStack(): { info: LocalStackInfo; dataDir: string } {
  const dataDir = resolve(process.env.DATA_DIR || '.data');
  const file = localPaths(dataDir).stackFile;
  if (!existsSync(file))
    throw new UsageError(`No local stack running for DATA_DIR=${dataDir}: start it with npm start`);
  const info = JSON.parse(readFileSync(file, 'utf8')) as LocalStackInfo;
  try {
    process.kill(info.pid, 0);
  } catch {
    throw new UsageError(`The local stack recorded in ${file} is not running: start it with npm start`);
  }
  return { info, dataDir };
}

let cachedDeps: Deps | undefined;

function deps(): Deps {
  cachedDeps ??= createDeps();
  return cachedDeps;
}

function createDeps(): Deps {
  const stage = values.stage;
  if (!stage) {
    const { info, dataDir } = localStack();
    return createLocalDeps({
      dataDir,
      dynamoEndpoint: info.dynamoEndpoint,
      baseUrl: info.baseUrl,
      budgets: operatorBudgets(),
    });
  }
  // AWS: onboarding touches DynamoDB only; the signing-key commands also sign (endorsements) and write the
  // immutable bucket. The first key's ARN is set by stageKeyDeps before anything signs.
  const kms = new KMSClient({});
  const signers = new Map<string, KmsSigner>();
  const signerFor = (keyId: string) => {
    let found = signers.get(keyId);
    if (!found) signers.set(keyId, (found = new KmsSigner(kms, keyId)));
    return found;
  };
  let objects: S3ObjectStore | undefined;
  return {
    db: createDocumentClient(),
    tables: { main: tableName(stage, 'main'), ledger: tableName(stage, 'ledger') },
    get signer() {
      return signerFor(firstKeyArn ?? stageSigningKeyAlias(stage, 1));
    },
    signerFor,
    get objects() {
      const bucket = required('immutable-bucket');
      const unused = (): never => {
        throw new Error('ledgerctl only writes the immutable bucket');
      };
      objects ??= new S3ObjectStore(new S3Client({}), {
        immutable: bucket,
        get uploads() {
          return unused();
        },
        get certificates() {
          return unused();
        },
      });
      return objects;
    },
    get queue(): never {
      throw new Error('ledgerctl does not use queues');
    },
    clock: systemClock,
    get oidc(): never {
      throw new Error('ledgerctl does not verify tokens');
    },
  };
}

let firstKeyArn: string | undefined;

function leadMs(): number {
  const seconds = Number(values['lead-seconds'] ?? DEFAULT_ROTATION_LEAD_SECONDS);
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 86_400)
    throw new UsageError('--lead-seconds must be 0..86400');
  return seconds * 1000;
}

/**
 * The key a rotation introduces: locally a new PEM file under DATA_DIR/keys; in AWS the stage's first
 * CDK-made key (alias gls-<stage>-ledger-signing-<n>) that the history does not hold yet.
 */
async function newKey(d: Deps): Promise<NewSigningKey> {
  const stage = values.stage;
  if (!stage) return createLocalSigningKey(localStack().dataDir);
  const stageKeys = await listStageKeys(new KMSClient({}), stage);
  const { history } = await loadKeyHistory(d);
  const next = nextUnusedKey(stageKeys, new Set(history.keys.map((k) => k.fingerprint)));
  if (!next)
    throw new UsageError(
      `Every KMS key of stage ${stage} is in the history already: deploy with -c signingKeys=${stageKeys.length + 1} first (docs/deploy.md)`,
    );
  return { keyId: next.arn };
}

/** In AWS the genesis entry must name the first key by ARN, as the functions' SIGNING_KEY_ID does. */
async function stageKeyDeps(): Promise<Deps> {
  const stage = values.stage;
  if (stage) {
    const first = (await listStageKeys(new KMSClient({}), stage))[0];
    if (!first)
      throw new UsageError(`No signing key ${stageSigningKeyAlias(stage, 1)} in this account and region`);
    firstKeyArn = first.arn;
  }
  return deps();
}

function count(name: 'records' | 'jobs' | 'days' | 'incidents', fallback?: number): number {
  const text = values[name];
  const value = text === undefined ? fallback : Number(text);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  const least = name === 'jobs' || name === 'incidents' ? 0 : 1;
  if (!Number.isInteger(value) || value < least)
    throw new UsageError(`--${name} must be a ${least === 0 ? 'non-negative' : 'positive'} integer`);
  return value;
}

/**
 * `seed`: a firm's bulk history (shared/services/seed). With --create, onboards a new firm first (its admin
 * and API key are printed with the summary); otherwise --firm must name an existing firm.
 */
async function seed(): Promise<unknown> {
  const records = count('records');
  const jobs = count('jobs');
  const days = count('days', 365);
  const incidents = values.incidents === undefined ? undefined : count('incidents');
  if (values.create && values.firm)
    throw new UsageError('--create makes a new firm: give --firm or --create');
  const d = await stageKeyDeps();
  const publicBaseUrl = values.stage
    ? required('public-base-url')
    : (process.env.PUBLIC_BASE_URL ?? localStack().info.baseUrl);
  let created: Awaited<ReturnType<typeof onboardFirm>> | undefined;
  if (values.create) {
    const name = values.name ?? 'Seeded Advice Ltd';
    created = await onboardFirm(d, {
      name,
      frnNumber: '123456',
      plan: 'BOTH',
      adminName: 'Seed Admin',
      adminEmail: 'admin@seed.invalid',
    });
  }
  const firmId = created?.firm.id ?? required('firm');
  if (!(await getFirm(d, firmId))) throw new UsageError(`No firm ${firmId}`);
  const summary = await seedFirm(d, {
    firmId,
    records,
    jobs,
    days,
    publicBaseUrl,
    ...(incidents === undefined ? {} : { incidents }),
  });
  return created ? { ...summary, created } : summary;
}

/** `backfill indexes`: one run (all of it, or --max-items), printing where the next run continues. */
async function backfill(d: Deps) {
  const maxItems = values['max-items'] === undefined ? undefined : Number(values['max-items']);
  if (maxItems !== undefined && (!Number.isInteger(maxItems) || maxItems < 1))
    throw new UsageError('--max-items must be a positive integer');
  let from: BackfillPosition | undefined;
  if (values.position !== undefined) {
    try {
      from = decodePosition(values.position);
    } catch {
      throw new UsageError('--position must be the `next` a previous run printed');
    }
  }
  const result = await backfillIndexes(d, { firmId: values.firm, from, maxItems });
  return { ...result, next: result.next ? encodePosition(result.next) : null };
}

async function run(): Promise<unknown> {
  const command = positionals.join(' ');
  switch (command) {
    case 'firm create': {
      const input = OnboardFirm.safeParse({
        name: required('name'),
        frnNumber: required('frn'),
        plan: required('plan'),
        adminName: required('admin-name'),
        adminEmail: required('admin-email'),
        adminFcaRef: values['admin-fca-ref'],
      });
      if (!input.success) throw new UsageError(z.prettifyError(input.error));
      return onboardFirm(deps(), input.data);
    }
    case 'api-key create': {
      const d = deps();
      const firmId = required('firm');
      if (!(await getFirm(d, firmId))) throw new UsageError(`No firm ${firmId}`);
      const name = z.string().trim().min(1).max(100).parse(required('name'));
      return issueApiKey(d, firmId, name);
    }
    case 'token': {
      if (values.stage) throw new UsageError('token mints development tokens for the local stack only');
      const { dataDir } = localStack();
      const d = deps();
      const firmId = required('firm');
      const email = required('email').toLowerCase();
      const user = await getUserByEmail(d, firmId, email);
      if (!user) throw new UsageError(`No user ${email} in firm ${firmId}`);
      const ttl = Number(values.ttl ?? 3600);
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86_400)
        throw new UsageError('--ttl must be 1..86400 seconds');
      const issuer = await DevIssuer.open(localPaths(dataDir).devIssuerKey);
      const token = await issuer.mint({
        issuer: DEV_ISSUER,
        audience: DEV_AUDIENCE,
        subject: `local|${user.id}`,
        email,
        claims: { [DEV_FIRM_CLAIM]: firmId },
        ttlSeconds: ttl,
      });
      return { token };
    }
    case 'backfill counters': {
      // Idempotent and resumable: rerun it, or pass --after the last firm a stopped run printed.
      const d = deps();
      if (values.firm && !(await getFirm(d, values.firm))) throw new UsageError(`No firm ${values.firm}`);
      return backfillCounters(d, { firmId: values.firm, after: values.after });
    }
    case 'signing-key show':
      return (await loadKeyHistory(await stageKeyDeps())).history;
    case 'signing-key rotate': {
      const d = await stageKeyDeps();
      return rotateSigningKey(d, await newKey(d), { leadMs: leadMs() });
    }
    case 'signing-key revoke': {
      const d = await stageKeyDeps();
      const fingerprint = required('key').toLowerCase();
      const from = required('from');
      if (Number.isNaN(Date.parse(from))) throw new UsageError('--from must be an ISO 8601 instant');
      const { history } = await loadKeyHistory(d);
      const current = history.keys.at(-1)!;
      return revokeSigningKey(d, {
        fingerprint,
        from,
        leadMs: leadMs(),
        ...(current.fingerprint === fingerprint ? { replacement: await newKey(d) } : {}),
      });
    }
    case 'seed':
      return seed();
    case 'backfill indexes':
      return backfill(deps());
    case 'recover ledger': {
      if (Boolean(values.firm) === Boolean(values.all)) throw new UsageError('give --firm FIRM_ID or --all');
      const maxRecords = values['max-records'] === undefined ? undefined : Number(values['max-records']);
      if (maxRecords !== undefined && (!Number.isInteger(maxRecords) || maxRecords < 1))
        throw new UsageError('--max-records must be a positive integer');
      // The copies are checked under the key history; in AWS its genesis names the stage's first key.
      const d = await stageKeyDeps();
      if (values.firm && !(await getFirm(d, values.firm))) throw new UsageError(`No firm ${values.firm}`);
      return recoverCommand(d, {
        firmId: values.firm,
        all: values.all === true,
        force: values.force === true,
        maxRecords,
      });
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'no command');
  }
}

try {
  const result = await run();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
} catch (error) {
  if (error instanceof UsageError) process.stderr.write(`ledgerctl: ${error.message}\n${USAGE}\n`);
  else if (error instanceof ServiceError || error instanceof z.ZodError)
    process.stderr.write(`ledgerctl: ${error.message}\n`);
  else process.stderr.write(`ledgerctl: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
}
