import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { dataOrThrow, describeError, useApi } from '../../app/api';
import { useSession } from '../../app/session';
import { useLoad } from '../../app/use-load';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { DecisionForm, EscalateForm } from './DecisionForm';
import { DocumentView } from './DocumentView';
import { JobFacts } from './JobFacts';
import { OutcomeRecord } from './OutcomeRecord';
import { itemsOf, when, type Job, type JobDetail } from './words';

const DECIDED: readonly Job['status'][] = ['APPROVED', 'MODIFIED', 'REJECTED'];

/** One review job: the document, its facts, then start, decide or escalate; afterwards the outcome. */
export function JobPage() {
  const { id = '' } = useParams();
  const api = useApi();
  const { user } = useSession();
  const detail = useLoad(
    async () => dataOrThrow(await api.GET('/v1/review/jobs/{id}', { params: { path: { id } } })),
    [api, id],
  );
  const types = useLoad(
    async () => itemsOf(dataOrThrow(await api.GET('/v1/firm/me/document-types', {}))),
    [api],
  );
  const [changed, setChanged] = useState<Job | null>(null);
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);

  if (detail.error)
    return (
      <Page title="Review job">
        <ErrorMessage error={detail.error} onRetry={detail.reload} />
        <p>
          <Link to="/review">Back to the review queue</Link>
        </p>
      </Page>
    );
  if (!detail.data)
    return (
      <Page title="Review job">
        <Loading />
      </Page>
    );
  const job: JobDetail = { ...detail.data, ...changed };
  const senior = user?.role === 'LEAD_REVIEWER' || user?.role === 'FIRM_ADMIN';
  const mine = job.assignedReviewerId === user?.id;
  const checklist = types.data?.find((t) => t.slug === job.documentType)?.checklistItems ?? [];
  const mayDecide = mine && job.status === 'IN_REVIEW' && (!job.requiresSeniorSignOff || senior);

  const moved = (next: Job) => {
    setChanged(next);
    detail.reload();
  };
  const start = async () => {
    setStarting(true);
    setStartError(null);
    try {
      moved(dataOrThrow(await api.POST('/v1/review/jobs/{id}/start', { params: { path: { id } } })));
    } catch (failure) {
      setStartError(describeError(failure));
    } finally {
      setStarting(false);
    }
  };

  return (
    <Page title={`Review ${job.documentReference}`}>
      <p>
        <Link to="/review">Back to the review queue</Link>
      </p>
      {(mine || senior) && <DocumentView job={job} />}
      <JobFacts job={job} />
      {(job.status === 'ASSIGNED' && mine) || (job.status === 'ESCALATED' && senior) ? (
        <section className="card" aria-labelledby="start">
          <h2 id="start">Start the review</h2>
          <p>Starting records REVIEW_STARTED on the ledger; the decision follows.</p>
          <ErrorMessage error={startError} />
          <button type="button" className="primary" disabled={starting} onClick={() => void start()}>
            {starting ? 'Starting…' : 'Start review'}
          </button>
        </section>
      ) : null}
      {mine && job.status === 'IN_REVIEW' && job.requiresSeniorSignOff && !senior ? (
        <p className="card">This job needs senior sign-off: escalate it to a lead reviewer.</p>
      ) : null}
      {mayDecide ? (
        types.error ? (
          <ErrorMessage error={types.error} onRetry={types.reload} />
        ) : types.data ? (
          <DecisionForm job={job} checklist={checklist} onDecided={moved} />
        ) : (
          <Loading label="Loading the checklist…" />
        )
      ) : null}
      {mine && (job.status === 'ASSIGNED' || job.status === 'IN_REVIEW') ? (
        <EscalateForm job={job} onEscalated={moved} />
      ) : null}
      {DECIDED.includes(job.status) ? <OutcomeRecord job={job} /> : null}
      <section className="card" aria-labelledby="history">
        <h2 id="history">History</h2>
        <DataTable
          caption="Review actions, oldest first"
          columns={[
            { header: 'When', cell: (a) => when(a.at) },
            { header: 'Action', cell: (a) => a.action },
            { header: 'By', cell: (a) => a.reviewer ?? a.role },
          ]}
          rows={job.reviewActions}
          rowKey={(a) => `${a.at}-${a.action}`}
          empty="Nothing has happened yet."
        />
      </section>
    </Page>
  );
}
