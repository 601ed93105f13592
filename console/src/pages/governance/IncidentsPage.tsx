/** Incidents: the firm's, newest first, 200 a page, and a form to log a new one (INCIDENT_LOGGED on the ledger). */
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { dateTime, Pager, useAction, useArrayPage, usePaging, words } from '../common';
import {
  INCIDENT_CATEGORIES as CATEGORIES,
  INCIDENT_SEVERITIES as SEVERITIES,
} from '../../../../shared/domain/governance/incidents.ts';

type Incident = components['schemas']['Incident'];
export function IncidentsPage() {
  const api = useApi();
  const paging = usePaging();
  const incidents = useArrayPage(
    () => api.GET('/v1/incidents', { params: { query: { cursor: paging.cursor } } }),
    paging,
    [api],
  );
  return (
    <Page title="Incidents">
      <NewIncident
        onCreated={() => {
          // The new incident is the newest: show the first page (or load it again when there already).
          if (paging.position === 1) incidents.reload();
          else paging.first();
        }}
      />
      <section aria-labelledby="incident-list-title">
        <h2 id="incident-list-title">Recent incidents</h2>
        {incidents.loading && !incidents.data ? (
          <Loading label="Loading incidents" />
        ) : incidents.error || !incidents.data ? (
          <ErrorMessage error={incidents.error} />
        ) : incidents.data.items.length === 0 && paging.position === 1 ? (
          <p>No incidents recorded.</p>
        ) : (
          <>
            <DataTable<Incident>
              caption="Recent incidents"
              rowKey={(row) => row.id}
              rows={incidents.data.items}
              columns={[
                { header: 'Title', cell: (i) => <Link to={`/governance/incidents/${i.id}`}>{i.title}</Link> },
                { header: 'Severity', cell: (i) => words(i.severity) },
                { header: 'Category', cell: (i) => words(i.category) },
                { header: 'Status', cell: (i) => words(i.status) },
                { header: 'Reported', cell: (i) => dateTime(i.reportedAt) },
                { header: 'Remediations', cell: (i) => i.remediations?.length ?? 0 },
              ]}
            />
            <Pager info={incidents.data.info} paging={paging} />
          </>
        )}
      </section>
    </Page>
  );
}

const splitIds = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function NewIncident({ onCreated }: { onCreated: () => void }) {
  const api = useApi();
  const action = useAction();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [severity, setSeverity] = useState<(typeof SEVERITIES)[number]>('MEDIUM');
  const [category, setCategory] = useState<(typeof CATEGORIES)[number]>('AI_MODEL');
  const [jobs, setJobs] = useState('');
  const [records, setRecords] = useState('');
  const [created, setCreated] = useState<Incident | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const incident = await action.run(() =>
      api.POST('/v1/incidents', {
        body: {
          title,
          description,
          severity,
          category,
          affectedReviewJobIds: splitIds(jobs),
          affectedLedgerRecordIds: splitIds(records),
        },
      }),
    );
    if (incident) {
      setCreated(incident);
      setTitle('');
      setDescription('');
      setJobs('');
      setRecords('');
      onCreated();
    }
  }

  return (
    <details className="panel" open={false}>
      <summary>Log an incident</summary>
      <form onSubmit={submit} className="form">
        <label htmlFor="incident-title">Title</label>
        <input id="incident-title" required value={title} onChange={(e) => setTitle(e.target.value)} />
        <label htmlFor="incident-description">Description</label>
        <textarea
          id="incident-description"
          required
          rows={4}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <label htmlFor="incident-severity">Severity</label>
        <select
          id="incident-severity"
          value={severity}
          onChange={(e) => setSeverity(e.target.value as typeof severity)}
        >
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {words(s)}
            </option>
          ))}
        </select>
        <label htmlFor="incident-category">Category</label>
        <select
          id="incident-category"
          value={category}
          onChange={(e) => setCategory(e.target.value as typeof category)}
        >
          {CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {words(c)}
            </option>
          ))}
        </select>
        <label htmlFor="incident-jobs">Affected review job ids (optional, comma separated)</label>
        <input id="incident-jobs" value={jobs} onChange={(e) => setJobs(e.target.value)} />
        <label htmlFor="incident-records">Affected ledger record ids (optional, comma separated)</label>
        <input id="incident-records" value={records} onChange={(e) => setRecords(e.target.value)} />
        <ErrorMessage error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Logging…' : 'Log incident'}
        </button>
        {created && (
          <p role="status">
            Logged <Link to={`/governance/incidents/${created.id}`}>{created.title}</Link>.
          </p>
        )}
      </form>
    </details>
  );
}
