/** The reports log: which governance reports were generated, for which period and by whom; filter and record one. */
import { useState, type FormEvent } from 'react';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { actorName, dateTime, day, Pager, useAction, useArrayPage, usePaging, words } from '../common';
import { REPORT_TYPES as TYPES } from '../../../../shared/domain/governance/report-log.ts';

type Entry = components['schemas']['ReportLogEntry'];
type ReportType = Entry['type'];

export function ReportsPage() {
  const api = useApi();
  const [type, setType] = useState<ReportType | ''>('');
  const paging = usePaging();
  const log = useArrayPage(
    () => api.GET('/v1/reports', { params: { query: { cursor: paging.cursor, ...(type ? { type } : {}) } } }),
    paging,
    [api, type],
  );
  return (
    <Page title="Reports log">
      <RecordReport
        onRecorded={() => {
          if (paging.position === 1) log.reload();
          else paging.first();
        }}
      />
      <section aria-labelledby="report-log-title">
        <h2 id="report-log-title">Generated reports</h2>
        <div className="toolbar">
          <label htmlFor="report-filter">Show</label>
          <select
            id="report-filter"
            value={type}
            onChange={(e) => {
              // A cursor is bound to its filter: another filter starts from its first page.
              paging.first();
              setType(e.target.value as ReportType | '');
            }}
          >
            <option value="">All types</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {words(t)}
              </option>
            ))}
          </select>
        </div>
        {log.loading ? (
          <Loading label="Loading the reports log" />
        ) : log.error || !log.data ? (
          <ErrorMessage error={log.error} />
        ) : log.data.items.length === 0 && paging.position === 1 ? (
          <p>No report recorded{type ? ' of this type' : ''}.</p>
        ) : (
          <>
            <DataTable<Entry>
              caption="Generated reports"
              rowKey={(row) => row.id}
              rows={log.data.items}
              columns={[
                { header: 'Type', cell: (e) => words(e.type) },
                { header: 'Period', cell: (e) => `${day(e.periodFrom)} to ${day(e.periodTo)}` },
                { header: 'Generated', cell: (e) => dateTime(e.generatedAt) },
                { header: 'By', cell: (e) => (e.generatedByUser ? actorName(e.generatedByUser) : '—') },
              ]}
            />
            <Pager info={log.data.info} paging={paging} />
          </>
        )}
      </section>
    </Page>
  );
}

function RecordReport({ onRecorded }: { onRecorded: () => void }) {
  const api = useApi();
  const action = useAction();
  const [type, setType] = useState<ReportType>('CONSUMER_DUTY');
  const [periodFrom, setFrom] = useState('');
  const [periodTo, setTo] = useState('');
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    const entry = await action.run(() => api.POST('/v1/reports', { body: { type, periodFrom, periodTo } }));
    if (entry) {
      setDone(true);
      onRecorded();
    }
  }

  return (
    <details className="panel">
      <summary>Record a generated report</summary>
      <form onSubmit={submit} className="form">
        <label htmlFor="report-type">Report type</label>
        <select id="report-type" value={type} onChange={(e) => setType(e.target.value as ReportType)}>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {words(t)}
            </option>
          ))}
        </select>
        <label htmlFor="report-from">Period from</label>
        <input
          id="report-from"
          type="date"
          required
          value={periodFrom}
          onChange={(e) => setFrom(e.target.value)}
        />
        <label htmlFor="report-to">Period to</label>
        <input id="report-to" type="date" required value={periodTo} onChange={(e) => setTo(e.target.value)} />
        <ErrorMessage error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Recording…' : 'Record report'}
        </button>
        {done && <p role="status">Recorded.</p>}
      </form>
    </details>
  );
}
