/**
 * `ledgerctl recover ledger (--firm F | --all) [--force] [--max-records N]`: rebuilds lost ledgers from the
 * immutable copies (shared/services/recover/recover-ledger.ts). With --all, every firm of the main table in id
 * order; a firm whose ledger is not empty is reported as refused (unless --force) and the others go on.
 */
import { ConflictError } from '../../shared/errors.js';
import type { Deps } from '../../shared/runtime/deps.js';
import { recoverLedger, type RecoverLedgerResult } from '../../shared/services/recover/recover-ledger.js';
import { scanFirmIds } from '../../shared/store/firm-store.js';

export interface RecoverCommand {
  firmId: string | undefined;
  all: boolean;
  force: boolean;
  maxRecords: number | undefined;
}

export async function recoverCommand(deps: Deps, command: RecoverCommand): Promise<unknown> {
  const options = {
    force: command.force,
    ...(command.maxRecords === undefined ? {} : { maxRecords: command.maxRecords }),
  };
  if (command.firmId) return recoverLedger(deps, { firmId: command.firmId, ...options });
  const started = performance.now();
  const firms: (RecoverLedgerResult | { firmId: string; status: 'refused'; reason: string })[] = [];
  for (const firmId of await scanFirmIds(deps)) {
    try {
      firms.push(await recoverLedger(deps, { firmId, ...options }));
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      firms.push({ firmId, status: 'refused', reason: error.message });
    }
  }
  return {
    firms,
    recovered: firms.reduce((n, f) => n + ('recovered' in f ? f.recovered : 0), 0),
    incomplete: firms.filter((f) => f.status === 'stopped' || f.status === 'paused').map((f) => f.firmId),
    refused: firms.filter((f) => f.status === 'refused').map((f) => f.firmId),
    seconds: Math.round(performance.now() - started) / 1000,
  };
}
