import { useState } from 'react';
import { Link } from 'react-router-dom';
import { dataOrThrow, describeError, useApi } from '../../app/api';
import { useSession } from '../../app/session';
import { useLoad } from '../../app/use-load';
import { DataTable, ErrorMessage, Loading, Page, type Column } from '../../app/ui';
import { STATUS_WORDS, when, type Job } from './words';

const columns: Column<Job>[] = [
  {
    header: 'Document',
    rowHeader: true,
    cell: (job) => <Link to={`/review/jobs/${job.id}`}>{job.documentReference}</Link>,
  },
  { header: 'Type', cell: (job) => job.documentType },
  { header: 'Status', cell: (job) => STATUS_WORDS[job.status] },
  { header: 'Priority', cell: (job) => (job.priority === 'URGENT' ? <strong>Urgent</strong> : 'Standard') },
  { header: 'Decide by', cell: (job) => when(job.slaDeadline) },
];

/** The reviewer's work: the job they hold (and, for seniors, escalations), the firm's waiting jobs, availability. */
export function ReviewQueuePage() {
  const api = useApi();
  const { user } = useSession();
  const queue = useLoad(async () => dataOrThrow(await api.GET('/v1/review/queue', {})).data, [api]);
  const waiting = useLoad(
    async () =>
      dataOrThrow(await api.GET('/v1/review/jobs', { params: { query: { status: 'QUEUED' } } })).data,
    [api],
  );
  return (
    <Page title="Review queue">
      <Availability initial={user?.isAvailable ?? false} onChange={queue.reload} />
      <section aria-labelledby="mine">
        <h2 id="mine">{user?.role === 'REVIEWER' ? 'Assigned to you' : 'Assigned to you and escalated'}</h2>
        <ErrorMessage error={queue.error} onRetry={queue.reload} />
        {queue.loading && !queue.data ? <Loading /> : null}
        {queue.data ? (
          <DataTable
            caption="Your review work"
            columns={columns}
            rows={queue.data}
            rowKey={(job) => job.id}
            empty="Nothing is assigned to you. Set yourself available to receive the next job."
          />
        ) : null}
      </section>
      <section aria-labelledby="waiting">
        <h2 id="waiting">Waiting for a reviewer</h2>
        <ErrorMessage error={waiting.error} onRetry={waiting.reload} />
        {waiting.loading && !waiting.data ? <Loading /> : null}
        {waiting.data ? (
          <DataTable
            caption="Jobs waiting for a reviewer"
            columns={columns}
            rows={waiting.data}
            rowKey={(job) => job.id}
            empty="No job is waiting."
          />
        ) : null}
      </section>
    </Page>
  );
}

function Availability(props: { initial: boolean; onChange: () => void }) {
  const api = useApi();
  const [available, setAvailable] = useState(props.initial);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      const result = dataOrThrow(
        await api.POST('/v1/review/availability', { body: { isAvailable: !available } }),
      );
      setAvailable(result.isAvailable);
      props.onChange();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card availability">
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={available}
          disabled={busy}
          onChange={() => void toggle()}
        />{' '}
        Available for new work
      </label>
      <p className="hint">
        {available
          ? 'You are given the next waiting job as soon as you are free.'
          : 'You receive no new jobs; a job you hold stays yours.'}
      </p>
      <ErrorMessage error={error} />
    </div>
  );
}
