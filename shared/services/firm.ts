import { actorOf, actorType, type Principal } from '../domain/auth/principal.js';
import {
  crossFieldProblems,
  diffSettings,
  effectiveSettings,
  isComplianceRelevant,
  type FirmSettings,
} from '../domain/firm/settings.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { appendUnlessRaced } from '../ledger-writer/append.js';
import type { Deps } from '../runtime/deps.js';
import { getFirm, settingsUpdateItem, updateSettings, type FirmItem } from '../store/firm-store.js';
import { readCounterFamily } from '../store/counter-store.js';
import { valueOf } from '../domain/counters/contributions.js';
import { readHead } from '../store/ledger-store.js';
import { LOST_RACE, retryOnLostRace } from '../store/lost-race.js';

export async function loadFirm(deps: Deps, firmId: string): Promise<FirmItem> {
  const firm = await getFirm(deps, firmId);
  // A credential outlived its firm: treat like any unknown resource.
  if (!firm) throw new NotFoundError('Firm not found');
  return firm;
}

export function presentFirm(firm: FirmItem) {
  return {
    id: firm.id,
    name: firm.name,
    frnNumber: firm.frnNumber,
    plan: firm.plan,
    createdAt: firm.createdAt,
    settings: effectiveSettings(firm.settings),
  };
}

const SETTINGS_ATTEMPTS = 5;

/**
 * Applies a settings update. Values equal to the stored ones are ignored; when nothing changes nothing is
 * written. A change that touches a compliance-relevant setting is committed in the same transaction as its
 * FIRM_SETTINGS_UPDATED record (both or neither). Concurrent updates are serialised by the firm's version.
 */
export async function changeSettings(
  deps: Deps,
  principal: Principal,
  update: Partial<FirmSettings>,
): Promise<FirmSettings> {
  return retryOnLostRace(
    async () => {
      const firm = await loadFirm(deps, principal.firmId);
      const current = effectiveSettings(firm.settings);
      const changes = diffSettings(current, update);
      if (changes.length === 0) return current;
      const next = { ...current, ...Object.fromEntries(changes.map((c) => [c.field, c.to])) } as FirmSettings;
      const problems = crossFieldProblems(next);
      if (problems.length > 0) throw new ValidationError('Settings are inconsistent', problems);
      const stored = { ...firm.settings, ...Object.fromEntries(changes.map((c) => [c.field, c.to])) };
      if (!isComplianceRelevant(changes))
        return (await updateSettings(deps, firm, stored)) ? next : LOST_RACE;
      const actor = actorOf(principal);
      // LOST_RACE: the settings' version moved (re-read and decide again).
      const record = await appendUnlessRaced(
        deps,
        {
          firmId: firm.id,
          eventType: 'FIRM_SETTINGS_UPDATED',
          actor,
          documentMetadata: {
            actorType: actorType(principal),
            actorId: actor.id,
            actorName: actor.name,
            changes,
          },
        },
        [settingsUpdateItem(deps, firm, stored)],
      );
      return record === LOST_RACE ? LOST_RACE : next;
    },
    {
      attempts: SETTINGS_ATTEMPTS,
      exhausted: () => new ConflictError('Settings were changed concurrently; retry the update'),
    },
  );
}

/**
 * recordCount is the chain head's sequence number (records are gapless); certificateCount and jobCount are
 * the counters kept with the certificate and job writes (issue 14): three small reads whatever the firm's age.
 */
export async function firmStats(deps: Deps, firmId: string) {
  const [head, certificates, jobs] = await Promise.all([
    readHead(deps, firmId),
    readCounterFamily(deps, firmId, 'certificates'),
    readCounterFamily(deps, firmId, 'jobs'),
  ]);
  return {
    recordCount: head.sequenceNumber,
    certificateCount: valueOf(certificates.counters, 'certificates'),
    jobCount: valueOf(jobs.counters, 'jobs', 'total'),
  };
}
