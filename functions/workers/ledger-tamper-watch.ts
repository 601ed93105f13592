import { judgeLedgerChange } from '../../shared/services/integrity/tamper-watch.js';
import { streamWorker } from '../../shared/workers/handler.js';

/**
 * The ledger table's stream (an event source mapping in AWS, the stream poller locally), filtered to record rows'
 * MODIFY and REMOVE and the head's REMOVE (TAMPER_WATCH_FILTERS): each change is judged against the row's
 * immutable copy and flagged when it is tampering (shared/services/integrity/tamper-watch.ts).
 */
export const handler = streamWorker(
  async (deps, record) => {
    const keys = record.dynamodb?.Keys;
    await judgeLedgerChange(deps, {
      eventName: record.eventName ?? '',
      pk: keys?.pk?.S ?? '',
      sk: keys?.sk?.S ?? '',
    });
  },
  { failureLog: 'Judging a ledger change failed' },
);
