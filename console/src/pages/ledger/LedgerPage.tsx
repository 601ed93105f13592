/**
 * The ledger explorer: the firm's records filtered by event type, actor, document hash or reference and dates,
 * newest first, each opening its detail; and chain verification (POST /v1/ledger/integrity/verify), followed
 * until the run completes, with its result.
 */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { Pager, dateTime, hasNextPage, useAction, useApiLoad, usePaging, words } from '../common';
import { LEDGER_EVENT_TYPES } from '../../../../shared/ledger/event-types.ts';

type LedgerRecord = components['schemas']['LedgerRecord'];
type EventType = components['schemas']['LedgerEventType'];
type VerifyResponse = components['schemas']['VerifyResponse'];

interface Filters {
  eventType: EventType | '';
  actorId: string;
  documentHash: string;
  documentReference: string;
  startDate: string;
  endDate: string;
}
const NO_FILTERS: Filters = {
  eventType: '',
  actorId: '',
  documentHash: '',
  documentReference: '',
  startDate: '',
  endDate: '',
};

/** The query of GET /v1/ledger/records: only the filters given; dates are whole UTC days. */
function query(filters: Filters, at: { page?: number }) {
  return {
    ...at,
    pageSize: 25,
    ...(filters.eventType ? { eventType: filters.eventType } : {}),
    ...(filters.actorId.trim() ? { actorId: filters.actorId.trim() } : {}),
    ...(filters.documentHash.trim() ? { documentHash: filters.documentHash.trim().toLowerCase() } : {}),
    ...(filters.documentReference.trim() ? { documentReference: filters.documentReference.trim() } : {}),
    ...(filters.startDate ? { startDate: `${filters.startDate}T00:00:00.000Z` } : {}),
    ...(filters.endDate ? { endDate: `${filters.endDate}T23:59:59.999Z` } : {}),
  };
}

export function LedgerPage() {
  const api = useApi();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const paging = usePaging();
  const records = useApiLoad(
    () => api.GET('/v1/ledger/records', { params: { query: query(filters, paging.query) } }),
    [api, filters, paging.query.page, paging.position],
  );
  const set = (key: keyof Filters) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [key]: e.target.value }));

  function apply(event: FormEvent) {
    event.preventDefault();
    setFilters(draft);
    paging.first();
  }

  return (
    <Page title="Ledger">
      <p>
        <Link to="/ledger/certificates">Certificates</Link>
      </p>
      <ChainVerification />
      <form onSubmit={apply} className="form filters" aria-labelledby="ledger-filters-title">
        <h2 id="ledger-filters-title">Find records</h2>
        <div className="filter-grid">
          <div className="field">
            <label htmlFor="filter-event">Event type</label>
            <select id="filter-event" value={draft.eventType} onChange={set('eventType')}>
              <option value="">Any event</option>
              {LEDGER_EVENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {words(t)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="filter-actor">Actor id</label>
            <input id="filter-actor" value={draft.actorId} onChange={set('actorId')} />
          </div>
          <div className="field">
            <label htmlFor="filter-hash">Document hash (sha256)</label>
            <input id="filter-hash" value={draft.documentHash} onChange={set('documentHash')} />
          </div>
          <div className="field">
            <label htmlFor="filter-reference">Document reference</label>
            <input
              id="filter-reference"
              value={draft.documentReference}
              onChange={set('documentReference')}
            />
          </div>
          <div className="field">
            <label htmlFor="filter-from">From date</label>
            <input id="filter-from" type="date" value={draft.startDate} onChange={set('startDate')} />
          </div>
          <div className="field">
            <label htmlFor="filter-to">To date</label>
            <input id="filter-to" type="date" value={draft.endDate} onChange={set('endDate')} />
          </div>
        </div>
        <div className="button-row">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            onClick={() => {
              setDraft(NO_FILTERS);
              setFilters(NO_FILTERS);
              paging.first();
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <section aria-labelledby="ledger-records-title">
        <h2 id="ledger-records-title">Records</h2>
        {records.loading ? (
          <Loading label="Loading ledger records" />
        ) : records.error || !records.data ? (
          <ErrorMessage error={records.error} />
        ) : records.data.data.length === 0 &&
          !hasNextPage(records.data.pagination) &&
          paging.position === 1 ? (
          <p>No record matches.</p>
        ) : (
          <>
            {records.data.pagination.total !== null && <p>{records.data.pagination.total} record(s).</p>}
            {records.data.data.length === 0 && <p>No record on this page; the next page may hold more.</p>}
            <DataTable<LedgerRecord>
              caption="Ledger records"
              rowKey={(row) => row.id}
              rows={records.data.data}
              columns={[
                {
                  header: 'Sequence',
                  cell: (r) => <Link to={`/ledger/records/${r.id}`}>#{r.sequenceNumber}</Link>,
                },
                { header: 'Event', cell: (r) => words(r.eventType) },
                { header: 'Actor', cell: (r) => r.actorName },
                { header: 'Time', cell: (r) => dateTime(r.timestamp) },
                {
                  header: 'Document hash',
                  cell: (r) => (r.documentHash ? <code>{r.documentHash.slice(0, 12)}…</code> : '—'),
                },
              ]}
            />
            <Pager info={records.data.pagination} paging={paging} />
          </>
        )}
      </section>
    </Page>
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ChainVerification() {
  const api = useApi();
  const action = useAction();
  const [outcome, setOutcome] = useState<VerifyResponse | null>(null);
  const [following, setFollowing] = useState(false);

  async function verify() {
    setOutcome(null);
    const started = await action.run(() => api.POST('/v1/ledger/integrity/verify'));
    if (!started) return;
    setOutcome(started);
    // Work beyond the call's limits continues on a queue: follow the run until it completes.
    setFollowing(true);
    try {
      const id = started.verification.id;
      let status = started.verification.status;
      for (let round = 0; status === 'RUNNING' && round < 150; round++) {
        await sleep(2000);
        const next: VerifyResponse | null | undefined = await action.run(() =>
          api.GET('/v1/ledger/integrity/verifications/{id}', { params: { path: { id } } }),
        );
        if (!next) return;
        setOutcome(next);
        status = next.verification.status;
      }
    } finally {
      setFollowing(false);
    }
  }

  const running = action.busy || following;
  return (
    <section aria-labelledby="verify-title" className="panel">
      <h2 id="verify-title">Chain verification</h2>
      <p>Recomputes every record's hash, checks each link of the chain and every signature.</p>
      <button type="button" onClick={() => void verify()} disabled={running}>
        {running ? 'Verifying…' : 'Verify the chain'}
      </button>
      {running && (
        <Loading
          label={
            outcome
              ? `Verifying: ${outcome.verification.progress.checkedThrough} of ${outcome.verification.progress.total} records (${Math.round(outcome.verification.progress.percent)} %)`
              : 'Verifying the chain'
          }
        />
      )}
      <ErrorMessage error={action.error} />
      {outcome && !running && <VerificationOutcome outcome={outcome} />}
    </section>
  );
}

function VerificationOutcome({ outcome }: { outcome: VerifyResponse }) {
  const { verification, result } = outcome;
  const valid = result.valid === true;
  return (
    <div
      role="status"
      className={valid ? 'result result-ok' : 'result result-bad'}
      data-testid="verification-result"
    >
      <p>
        <strong>
          {result.valid === null
            ? 'Verification still running.'
            : valid
              ? 'The chain is intact.'
              : `The chain is broken: ${result.brokenCount} record(s) fail.`}
        </strong>{' '}
        {result.recordsChecked} record(s) checked (sequence {result.checkedFrom} to {result.checkedThrough}),{' '}
        {verification.mode} run
        {verification.completedAt ? `, completed ${dateTime(verification.completedAt)}` : ''}.
        {verification.ledgerRecordId && (
          <>
            {' '}
            <Link to={`/ledger/records/${verification.ledgerRecordId}`}>Its CHAIN_VERIFIED record</Link>.
          </>
        )}
      </p>
      {result.brokenRecords.length > 0 && (
        <ul>
          {result.brokenRecords.map((b) => (
            <li key={b.sequenceNumber}>
              #{b.sequenceNumber}
              {b.recordId ? (
                <>
                  {' '}
                  (<Link to={`/ledger/records/${b.recordId}`}>{b.recordId}</Link>)
                </>
              ) : (
                ' (missing)'
              )}
              : {b.problems.map((p) => p.message).join('; ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
