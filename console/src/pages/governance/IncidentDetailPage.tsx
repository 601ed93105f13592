/**
 * One incident: its facts, moving it through its states (OPEN → INVESTIGATING ↔ REMEDIATING → RESOLVED →
 * CLOSED), its root cause, and its remediations (add one, move each through OPEN, IN_PROGRESS, COMPLETED,
 * CANCELLED).
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { actorName, dateTime, useAction, useApiLoad, words } from '../common';

type Incident = components['schemas']['Incident'];
type Status = Incident['status'];
type Remediation = components['schemas']['IncidentRemediation'];

/** The moves the service accepts from each status (UpdateIncident in the OpenAPI description). */
const NEXT: Record<Status, Status[]> = {
  OPEN: ['INVESTIGATING', 'REMEDIATING', 'RESOLVED', 'CLOSED'],
  INVESTIGATING: ['REMEDIATING', 'RESOLVED', 'CLOSED'],
  REMEDIATING: ['INVESTIGATING', 'RESOLVED', 'CLOSED'],
  RESOLVED: ['CLOSED'],
  CLOSED: [],
};
const REMEDIATION_STATUSES: Remediation['status'][] = ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'];

export function IncidentDetailPage() {
  const { id = '' } = useParams();
  const api = useApi();
  const incident = useApiLoad(() => api.GET('/v1/incidents/{id}', { params: { path: { id } } }), [api, id]);
  const title = incident.data ? `Incident: ${incident.data.title}` : 'Incident';
  return (
    <Page title={title}>
      <p>
        <Link to="/governance/incidents">All incidents</Link>
      </p>
      {incident.loading && !incident.data ? (
        <Loading label="Loading the incident" />
      ) : incident.error || !incident.data ? (
        <ErrorMessage error={incident.error} />
      ) : (
        <IncidentView incident={incident.data} onChange={incident.reload} />
      )}
    </Page>
  );
}

function IncidentView({ incident, onChange }: { incident: Incident; onChange: () => void }) {
  const api = useApi();
  const move = useAction();
  const [next, setNext] = useState<Status | ''>('');
  const [rootCause, setRootCause] = useState(incident.rootCause ?? '');
  const saveCause = useAction();

  async function changeStatus(event: FormEvent) {
    event.preventDefault();
    if (!next) return;
    const done = await move.run(() =>
      api.POST('/v1/incidents/{id}', { params: { path: { id: incident.id } }, body: { status: next } }),
    );
    if (done) {
      setNext('');
      onChange();
    }
  }

  async function saveRootCause(event: FormEvent) {
    event.preventDefault();
    const done = await saveCause.run(() =>
      api.POST('/v1/incidents/{id}', {
        params: { path: { id: incident.id } },
        body: { rootCause: rootCause.trim() === '' ? null : rootCause },
      }),
    );
    if (done) onChange();
  }

  return (
    <>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="incident-status">{words(incident.status)}</dd>
        <dt>Severity</dt>
        <dd>{words(incident.severity)}</dd>
        <dt>Category</dt>
        <dd>{words(incident.category)}</dd>
        <dt>Reported</dt>
        <dd>
          {dateTime(incident.reportedAt)}
          {incident.reportedBy ? ` by ${actorName(incident.reportedBy)}` : ''}
        </dd>
        <dt>Resolved</dt>
        <dd>{dateTime(incident.resolvedAt)}</dd>
        <dt>Description</dt>
        <dd className="prose">{incident.description}</dd>
        <dt>Affected review jobs</dt>
        <dd>{incident.affectedReviewJobIds.join(', ') || 'None'}</dd>
        <dt>Affected ledger records</dt>
        <dd>
          {incident.affectedLedgerRecordIds.length === 0
            ? 'None'
            : incident.affectedLedgerRecordIds.map((r) => (
                <Link key={r} to={`/ledger/records/${r}`} className="id-link">
                  {r}
                </Link>
              ))}
        </dd>
      </dl>

      {NEXT[incident.status].length > 0 && (
        <form onSubmit={changeStatus} className="form inline-form">
          <label htmlFor="incident-next-status">Move to</label>
          <select id="incident-next-status" value={next} onChange={(e) => setNext(e.target.value as Status)}>
            <option value="">Choose a status</option>
            {NEXT[incident.status].map((s) => (
              <option key={s} value={s}>
                {words(s)}
              </option>
            ))}
          </select>
          <button type="submit" disabled={!next || move.busy}>
            {move.busy ? 'Saving…' : 'Change status'}
          </button>
          <ErrorMessage error={move.error} />
        </form>
      )}

      <form onSubmit={saveRootCause} className="form">
        <label htmlFor="incident-root-cause">Root cause</label>
        <textarea
          id="incident-root-cause"
          rows={3}
          value={rootCause}
          onChange={(e) => setRootCause(e.target.value)}
        />
        <button type="submit" disabled={saveCause.busy}>
          {saveCause.busy ? 'Saving…' : 'Save root cause'}
        </button>
        <ErrorMessage error={saveCause.error} />
      </form>

      <Remediations incident={incident} onChange={onChange} />
    </>
  );
}

function Remediations({ incident, onChange }: { incident: Incident; onChange: () => void }) {
  const api = useApi();
  const add = useAction();
  const update = useAction();
  const [description, setDescription] = useState('');
  const [ownerName, setOwnerName] = useState('');
  const [dueAt, setDueAt] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await add.run(() =>
      api.POST('/v1/incidents/{id}/remediations', {
        params: { path: { id: incident.id } },
        body: {
          description,
          ownerName: ownerName.trim() || null,
          dueAt: dueAt ? new Date(`${dueAt}T23:59:59.000Z`).toISOString() : null,
        },
      }),
    );
    if (created) {
      setDescription('');
      setOwnerName('');
      setDueAt('');
      onChange();
    }
  }

  async function setStatus(remediation: Remediation, status: Remediation['status']) {
    const done = await update.run(() =>
      api.POST('/v1/incidents/{id}/remediations/{remediationId}', {
        params: { path: { id: incident.id, remediationId: remediation.id } },
        body: { status },
      }),
    );
    if (done) onChange();
  }

  const remediations = incident.remediations ?? [];
  return (
    <section aria-labelledby="remediations-title">
      <h2 id="remediations-title">Remediations</h2>
      {remediations.length === 0 ? (
        <p>No remediation yet.</p>
      ) : (
        <DataTable<Remediation>
          caption="Remediations"
          rowKey={(row) => row.id}
          rows={remediations}
          columns={[
            { header: 'Description', cell: (r) => r.description },
            { header: 'Owner', cell: (r) => r.ownerName ?? '—' },
            { header: 'Due', cell: (r) => (r.dueAt ? r.dueAt.slice(0, 10) : '—') },
            {
              header: 'Status',
              cell: (r) => (
                <select
                  aria-label={`Status of remediation: ${r.description}`}
                  value={r.status}
                  disabled={update.busy}
                  onChange={(e) => void setStatus(r, e.target.value as Remediation['status'])}
                >
                  {REMEDIATION_STATUSES.map((s) => (
                    <option key={s} value={s}>
                      {words(s)}
                    </option>
                  ))}
                </select>
              ),
            },
            { header: 'Completed', cell: (r) => dateTime(r.completedAt) },
          ]}
        />
      )}
      <ErrorMessage error={update.error} />
      <form onSubmit={submit} className="form">
        <h3>Add a remediation</h3>
        <label htmlFor="remediation-description">Description</label>
        <textarea
          id="remediation-description"
          required
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <label htmlFor="remediation-owner">Owner (optional)</label>
        <input id="remediation-owner" value={ownerName} onChange={(e) => setOwnerName(e.target.value)} />
        <label htmlFor="remediation-due">Due date (optional)</label>
        <input id="remediation-due" type="date" value={dueAt} onChange={(e) => setDueAt(e.target.value)} />
        <button type="submit" disabled={add.busy}>
          {add.busy ? 'Adding…' : 'Add remediation'}
        </button>
        <ErrorMessage error={add.error} />
      </form>
    </section>
  );
}
