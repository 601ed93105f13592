/** Impact assessments: the firm's list (newest first, page by page) and a form to draft a new one. */
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { actorName, dateTime, Pager, useAction, useArrayPage, usePaging, words } from '../common';

type Assessment = components['schemas']['ImpactAssessment'];

export function AssessmentsPage() {
  const api = useApi();
  const paging = usePaging();
  const list = useArrayPage(
    () => api.GET('/v1/impact-assessments', { params: { query: { cursor: paging.cursor } } }),
    paging,
    [api],
  );
  return (
    <Page title="Impact assessments">
      <NewAssessment />
      <section aria-labelledby="assessment-list-title">
        <h2 id="assessment-list-title">Assessments</h2>
        {list.loading && !list.data ? (
          <Loading label="Loading impact assessments" />
        ) : list.error || !list.data ? (
          <ErrorMessage error={list.error} />
        ) : list.data.items.length === 0 && paging.position === 1 ? (
          <p>No impact assessment yet.</p>
        ) : (
          <>
            <DataTable<Assessment>
              caption="Impact assessments"
              rowKey={(row) => row.id}
              rows={list.data.items}
              columns={[
                {
                  header: 'Use case',
                  cell: (a) => <Link to={`/governance/assessments/${a.id}`}>{a.useCase}</Link>,
                },
                {
                  header: 'Model',
                  cell: (a) => (a.modelProvider ? `${a.modelProvider} ${a.modelVersion ?? ''}` : '—'),
                },
                { header: 'Status', cell: (a) => words(a.status) },
                { header: 'Updated', cell: (a) => dateTime(a.updatedAt) },
                { header: 'Signed off', cell: (a) => (a.signedOffBy ? actorName(a.signedOffBy) : '—') },
              ]}
            />
            <Pager info={list.data.info} paging={paging} />
          </>
        )}
      </section>
    </Page>
  );
}

function NewAssessment() {
  const api = useApi();
  const navigate = useNavigate();
  const action = useAction();
  const [useCase, setUseCase] = useState('');
  const [description, setDescription] = useState('');
  const [modelProvider, setModelProvider] = useState('');
  const [modelVersion, setModelVersion] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await action.run(() =>
      api.POST('/v1/impact-assessments', {
        body: {
          useCase,
          description,
          modelProvider: modelProvider.trim() || null,
          modelVersion: modelVersion.trim() || null,
        },
      }),
    );
    if (created) navigate(`/governance/assessments/${created.id}`);
  }

  return (
    <details className="panel">
      <summary>Draft an impact assessment</summary>
      <form onSubmit={submit} className="form">
        <label htmlFor="assessment-use-case">Use case</label>
        <input
          id="assessment-use-case"
          required
          value={useCase}
          onChange={(e) => setUseCase(e.target.value)}
        />
        <label htmlFor="assessment-description">Description</label>
        <textarea
          id="assessment-description"
          required
          rows={3}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        <label htmlFor="assessment-provider">Model provider (optional)</label>
        <input
          id="assessment-provider"
          value={modelProvider}
          onChange={(e) => setModelProvider(e.target.value)}
        />
        <label htmlFor="assessment-version">Model version (optional)</label>
        <input
          id="assessment-version"
          value={modelVersion}
          onChange={(e) => setModelVersion(e.target.value)}
        />
        <ErrorMessage error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Creating…' : 'Create draft'}
        </button>
      </form>
    </details>
  );
}
