import { newId } from '../ids.js';
import { isoNow } from '../ports/clock.js';
import type { Deps } from '../runtime/deps.js';
import { putApiKeyItems } from '../store/api-key-store.js';
import { registryPutItem } from '../store/backup-store.js';
import { writeNew } from '../store/conditional-write.js';
import type { Plan } from '../domain/firm/plans.js';
import { putFirmItem, type FirmItem } from '../store/firm-store.js';
import { putUserItems, type UserItem } from '../store/user-store.js';
import { mintApiKey } from './api-keys.js';
import { presentFirm } from './firm.js';
import { presentUser } from './users.js';

export interface OnboardFirmInput {
  name: string;
  frnNumber: string;
  plan: Plan;
  adminName: string;
  adminEmail: string;
  adminFcaRef?: string | null;
}

/**
 * Creates a firm with its first FIRM_ADMIN user and its first API key, all in one transaction (the operator
 * CLI's `firm create`; the interface has no endpoint for onboarding).
 */
export async function onboardFirm(deps: Deps, input: OnboardFirmInput) {
  const now = isoNow(deps.clock);
  const firm: FirmItem = {
    id: newId('firm'),
    name: input.name,
    frnNumber: input.frnNumber,
    plan: input.plan,
    createdAt: now,
    settings: {},
    version: 0,
  };
  const admin: UserItem = {
    id: newId('user'),
    firmId: firm.id,
    name: input.adminName,
    email: input.adminEmail.toLowerCase(),
    fcaRef: input.adminFcaRef ?? null,
    qualifications: [],
    role: 'FIRM_ADMIN',
    isAvailable: true,
    specialistVulnerability: false,
    invitedAt: now,
    activatedAt: null,
    deactivatedAt: null,
    activeJobId: null,
  };
  const key = mintApiKey(deps, firm.id, 'default');
  await writeNew(
    deps,
    [
      putFirmItem(deps, firm),
      ...putUserItems(deps, admin),
      ...putApiKeyItems(deps, key.item, key.keyHash),
      // The scheduled backup reconciliation walks the registered firms.
      registryPutItem(deps, firm.id),
    ],
    `firm ${firm.id}`,
  );
  return { firm: presentFirm(firm), admin: presentUser(admin), apiKey: key.key };
}
