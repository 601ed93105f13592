import { App } from 'aws-cdk-lib';
import { FIRM_CLAIM, type OidcSettings } from '../lib/auth.js';
import { GovernanceLedgerStack } from '../lib/stack.js';
import { parseStage } from '../lib/stage.js';
import { buildConsoleIfStale } from '../scripts/console-build.js';
import { checkWebhookUrl } from '../shared/domain/webhooks/url-policy.js';
import { parsePlatformWitnesses, parseWitnessVkey } from '../shared/domain/witnesses/witness-vkey.js';

/**
 * The CDK app: one stack per stage.
 *
 *   npx cdk deploy -c stage=prod [-c retentionDays=3653] [-c alarmEmail=ops@example.com]
 *   npx cdk deploy -c stage=dev -c oidcIssuer=https://id.example.com -c oidcAudience=ledger-api
 *        [-c oidcJwksUrl=...] [-c oidcFirmClaim=...]        (trust that issuer instead of a Cognito user pool)
 *   npx cdk deploy -c stage=prod -c signingKeys=2 [-c retiredSigningKeys=1]   (key rotation, docs/deploy.md)
 *   npx cdk deploy -c stage=prod -c indexLimit=N    (upgrading a stage one index per deploy, docs/deploy.md)
 *   npx cdk deploy -c stage=prod -c platformWitnesses='<vkey> https://witness.example/a, <vkey> <url>'
 *        (witnesses every firm's checkpoints are submitted to, docs/witness.md)
 */
const app = new App();

function context(key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
}

function positiveInteger(key: string): number | undefined {
  const raw = context(key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${key} must be a positive integer, got ${raw}`);
  return value;
}

function nonNegativeInteger(key: string): number | undefined {
  const raw = context(key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${key} must be a non-negative integer, got ${raw}`);
  return value;
}

function externalIssuer(): OidcSettings | undefined {
  const issuer = context('oidcIssuer');
  const audience = context('oidcAudience');
  if (issuer === undefined) {
    if (audience !== undefined || context('oidcJwksUrl') !== undefined)
      throw new Error('oidcAudience and oidcJwksUrl need oidcIssuer');
    return undefined;
  }
  if (!issuer.startsWith('https://')) throw new Error(`oidcIssuer must be an https URL, got ${issuer}`);
  if (audience === undefined) throw new Error('oidcIssuer needs oidcAudience');
  return {
    issuer,
    audience,
    // Where most issuers publish their keys; others (Okta, Entra ID) need oidcJwksUrl.
    jwksUrl: context('oidcJwksUrl') ?? `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
    firmClaim: context('oidcFirmClaim') ?? FIRM_CLAIM,
  };
}

/** Checked at synth: a malformed entry fails the deploy, not the first submission. */
function platformWitnesses(): string | undefined {
  const setting = context('platformWitnesses');
  if (setting === undefined) return undefined;
  for (const entry of parsePlatformWitnesses(setting)) {
    parseWitnessVkey(entry.vkey);
    const checked = checkWebhookUrl(entry.url, { allowInsecureLoopback: false });
    if (!checked.ok) throw new Error(`platformWitnesses: the URL ${entry.url} ${checked.reason}`);
  }
  return setting;
}

const stage = parseStage(context('stage') ?? 'dev');
// The stack deploys the built web console (lib/console.ts): build it first when any of its sources changed.
buildConsoleIfStale();

new GovernanceLedgerStack(app, `GovernanceLedger-${stage}`, {
  stage,
  retentionDays: positiveInteger('retentionDays'),
  indexLimit: positiveInteger('indexLimit'),
  oidc: externalIssuer(),
  alarmEmail: context('alarmEmail'),
  signingKeys: positiveInteger('signingKeys'),
  retiredSigningKeys: nonNegativeInteger('retiredSigningKeys'),
  platformWitnesses: platformWitnesses(),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  description: `Governance ledger service, stage ${stage}`,
});
