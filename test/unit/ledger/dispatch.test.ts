import {
  dispatchRecord,
  subscribersOfFirm,
  type RecordMessage,
} from '../../../shared/ledger-writer/dispatch.js';
import { LEDGER_EVENT_TYPES, type LedgerEventType } from '../../../shared/ledger/event-types.js';
import type { QueueName } from '../../../shared/ports/queue.js';
import type { Deps } from '../../../shared/runtime/deps.js';
import { WORKERS } from '../../../shared/workers/table.js';
import { RECORD_SUBSCRIBERS } from '../../../shared/workers/record-subscribers.js';

function recordingDeps(fail?: QueueName): { deps: Deps; sent: Array<[QueueName, unknown]> } {
  const sent: Array<[QueueName, unknown]> = [];
  const queue = {
    send: async (name: QueueName, message: unknown) => {
      if (name === fail) throw new Error('queue down');
      sent.push([name, message]);
    },
  };
  return { deps: { queue } as unknown as Deps, sent };
}

const message: RecordMessage = {
  firmId: 'firm_1',
  sequenceNumber: 7,
  recordId: 'record_1',
  eventType: 'DOCUMENT_APPROVED',
};

describe('dispatchRecord', () => {
  it('sends the record to exactly the subscribers that want its event type', async () => {
    const { deps, sent } = recordingDeps();
    await dispatchRecord(deps, message, [
      { queue: 'ledger-archive', wants: (type) => type === 'DOCUMENT_APPROVED' },
      { queue: 'integrity-verify', wants: (type) => type === 'CHAIN_VERIFIED' },
    ]);
    expect(sent).toEqual([['ledger-archive', message]]);
  });

  it('fails when a send fails, so the outbox entry is kept for the sweep', async () => {
    const { deps } = recordingDeps('ledger-archive');
    await expect(
      dispatchRecord(deps, message, [{ queue: 'ledger-archive', wants: () => true }]),
    ).rejects.toThrow('queue down');
  });

  it('by default sends to the queue workers that subscribe to the event type in the worker table', async () => {
    const sentFor = async (eventType: LedgerEventType) => {
      const { deps, sent } = recordingDeps();
      await dispatchRecord(deps, { ...message, eventType });
      return sent.map(([queue]) => queue).sort();
    };
    expect(await sentFor('DOCUMENT_APPROVED')).toEqual(['certificates', 'reporting', 'webhooks']);
    expect(await sentFor('IMPACT_ASSESSMENT_APPROVED')).toEqual(['certificates', 'webhooks']);
    expect(await sentFor('SLA_BREACHED')).toEqual(['webhooks']);
    expect(await sentFor('CHAIN_VERIFIED')).toEqual([]);
    for (const eventType of LEDGER_EVENT_TYPES) {
      const subscribed = WORKERS.flatMap(({ trigger }) =>
        trigger.kind === 'queue' && trigger.subscribesTo?.includes(eventType) ? [trigger.queue] : [],
      );
      expect(await sentFor(eventType)).toEqual(subscribed.sort());
    }
  });

  it('derives one subscriber per subscribing queue worker', () => {
    expect(RECORD_SUBSCRIBERS.map((subscriber) => subscriber.queue).sort()).toEqual([
      'certificates',
      'reporting',
      'webhooks',
    ]);
  });
});

describe('subscribersOfFirm', () => {
  function depsWithEndpoints(endpoints: { isActive: boolean; events: string[] }[]) {
    const queries: unknown[] = [];
    const db = {
      send: async (command: { input: unknown }) => {
        queries.push(command.input);
        return {
          Items: endpoints.map((e, i) => ({ pk: 'FIRM#firm_1', sk: `WEBHOOK#wh_${i}`, id: `wh_${i}`, ...e })),
        };
      },
    };
    return { deps: { db, tables: { main: 'main', ledger: 'ledger' } } as unknown as Deps, queries };
  }
  const webhooks = { queue: 'webhooks' as const, wants: () => true };
  const archive = { queue: 'ledger-archive' as const, wants: () => true };

  it('lets the webhooks queue hear only of event types an active endpoint of the firm subscribes to', async () => {
    const { deps, queries } = depsWithEndpoints([
      { isActive: true, events: ['document.approved'] },
      { isActive: false, events: ['document.rejected'] },
    ]);
    const [forArchive, forWebhooks] = await subscribersOfFirm(deps, 'firm_1', [archive, webhooks]);
    expect(queries).toHaveLength(1);
    expect(forArchive!.wants('DOCUMENT_REJECTED')).toBe(true);
    expect(forWebhooks!.wants('DOCUMENT_APPROVED')).toBe(true);
    expect(forWebhooks!.wants('DOCUMENT_REJECTED')).toBe(false);
    expect(forWebhooks!.wants('INCIDENT_LOGGED')).toBe(false);
  });

  it('sends nothing to the webhooks queue for a firm without endpoints, and reads nothing without that queue', async () => {
    const none = depsWithEndpoints([]);
    const [forWebhooks] = await subscribersOfFirm(none.deps, 'firm_1', [webhooks]);
    expect(LEDGER_EVENT_TYPES.some((type) => forWebhooks!.wants(type))).toBe(false);
    const other = depsWithEndpoints([{ isActive: true, events: ['document.approved'] }]);
    await subscribersOfFirm(other.deps, 'firm_1', [archive]);
    expect(other.queries).toHaveLength(0);
  });
});
