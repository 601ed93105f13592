import { DevIssuer } from '../../shared/adapters/local/dev-issuer.js';
import { operatorBudgets } from '../../shared/runtime/config.js';
import type { Deps } from '../../shared/runtime/deps.js';
import {
  createLocalDeps,
  DEV_AUDIENCE,
  DEV_FIRM_CLAIM,
  DEV_ISSUER,
  localPaths,
} from '../../shared/runtime/local-deps.js';
import { OnboardFirm } from '../../shared/schemas/firm.js';
import { onboardFirm } from '../../shared/services/onboarding.js';
import { getUserByEmail } from '../../shared/store/user-store.js';

/**
 * What an operator does with ledgerctl for a test's fixtures (`firm create`, `token`), in the test's own process:
 * the same service calls bin/ledgerctl.ts makes, with the same local dependencies and operator budgets, and the
 * answer as ledgerctl prints it (JSON). A ledgerctl process costs ~2 s of CPU (tsx and its module graph) on a
 * 2-core machine, and the integration tests onboarded firms and minted tokens hundreds of times. The CLI itself is
 * exercised through its process by embedded-stack.test.ts (`firm create`, `api-key create`, its errors) and
 * tamper-watch.test.ts (`token`).
 */

interface StackAddress {
  dataDir: string;
  dynamoEndpoint: string;
  baseUrl: string;
}

const depsByDataDir = new Map<string, Deps>();
const issuers = new Map<string, Promise<DevIssuer>>();

function operatorDeps(stack: StackAddress): Deps {
  let deps = depsByDataDir.get(stack.dataDir);
  if (!deps) {
    deps = createLocalDeps({ ...stack, budgets: operatorBudgets() });
    depsByDataDir.set(stack.dataDir, deps);
  }
  return deps;
}

/** As `ledgerctl firm create`: the new firm, its admin and its first API key. */
export async function createFirmAsOperator(
  stack: StackAddress,
  input: { name: string; frnNumber: string; plan: string; adminName: string; adminEmail: string },
): Promise<{
  firm: { id: string; name: string; frnNumber: string; plan: string; createdAt: string };
  admin: { id: string; email: string; name: string; role: string };
  apiKey: string;
}> {
  const created = await onboardFirm(operatorDeps(stack), OnboardFirm.parse(input));
  return JSON.parse(JSON.stringify(created)) as Awaited<ReturnType<typeof createFirmAsOperator>>;
}

/** As `ledgerctl token`: a development bearer token of the firm's user `email`, signed by the stack's dev issuer. */
export async function mintTokenAsOperator(
  stack: StackAddress,
  firmId: string,
  email: string,
  ttlSeconds = 3600,
): Promise<string> {
  const user = await getUserByEmail(operatorDeps(stack), firmId, email.toLowerCase());
  if (!user) throw new Error(`No user ${email} in firm ${firmId}`);
  let issuer = issuers.get(stack.dataDir);
  if (!issuer) {
    issuer = DevIssuer.open(localPaths(stack.dataDir).devIssuerKey);
    issuers.set(stack.dataDir, issuer);
  }
  return (await issuer).mint({
    issuer: DEV_ISSUER,
    audience: DEV_AUDIENCE,
    subject: `local|${user.id}`,
    email: email.toLowerCase(),
    claims: { [DEV_FIRM_CLAIM]: firmId },
    ttlSeconds,
  });
}
