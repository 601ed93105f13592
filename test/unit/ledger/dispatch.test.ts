import type { QueueName } from '../../../shared/ports/queue.js';
import type { Deps } from '../../../shared/runtime/deps.js';
import { dispatchRecord, type RecordMessage } from '../../../shared/ledger/dispatch.js';

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
});
