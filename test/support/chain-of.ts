import { appendRecord } from '../../shared/ledger-writer/append.js';
import type { Deps } from '../../shared/runtime/deps.js';

/** Appends `n` INCIDENT_LOGGED records to the firm's chain through the ledger writer (unit tests' fixture). */
export async function chainOf(deps: Deps, firmId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    await appendRecord(deps, {
      firmId,
      eventType: 'INCIDENT_LOGGED',
      actor: { id: 'usr_1', name: 'Ann', fcaRef: null },
      documentMetadata: { n: i },
    });
}
