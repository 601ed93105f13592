/**
 * One impact assessment: edit it while it is a draft (or rejected, or pending), submit it for sign-off, approve or
 * reject it (a signed-in LEAD_REVIEWER or FIRM_ADMIN), supersede it once approved, and reach the ledger record and
 * certificate of its approval.
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { useSession } from '../../app/session';
import { ErrorMessage, Loading, Page } from '../../app/ui';
import { actorName, dateTime, useAction, useApiLoad, words } from '../common';

type Assessment = components['schemas']['ImpactAssessment'];
type Outcomes = Assessment['outcomes'];
type Area = keyof Outcomes;
type Risk = Outcomes[Area]['riskRating'];
type Status = Assessment['status'];

const AREAS: { key: Area; label: string }[] = [
  { key: 'productsAndServices', label: 'Products and services (PRIN 2A.3)' },
  { key: 'priceAndValue', label: 'Price and value (PRIN 2A.4)' },
  { key: 'consumerUnderstanding', label: 'Consumer understanding (PRIN 2A.5)' },
  { key: 'consumerSupport', label: 'Consumer support (PRIN 2A.6)' },
];
const RISKS: Risk[] = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];
const SENIOR = new Set(['LEAD_REVIEWER', 'FIRM_ADMIN']);

export function AssessmentDetailPage() {
  const { id = '' } = useParams();
  const api = useApi();
  const assessment = useApiLoad(
    () => api.GET('/v1/impact-assessments/{id}', { params: { path: { id } } }),
    [api, id],
  );
  return (
    <Page title={assessment.data ? `Impact assessment: ${assessment.data.useCase}` : 'Impact assessment'}>
      <p>
        <Link to="/governance/assessments">All impact assessments</Link>
      </p>
      {assessment.loading && !assessment.data ? (
        <Loading label="Loading the impact assessment" />
      ) : assessment.error || !assessment.data ? (
        <ErrorMessage error={assessment.error} />
      ) : (
        <AssessmentView assessment={assessment.data} onChange={assessment.reload} />
      )}
    </Page>
  );
}

function AssessmentView({ assessment, onChange }: { assessment: Assessment; onChange: () => void }) {
  const api = useApi();
  const { user } = useSession();
  const transition = useAction();
  const editable = assessment.status !== 'APPROVED' && assessment.status !== 'SUPERSEDED';
  const senior = user !== null && SENIOR.has(user.role);

  async function move(status: Status) {
    const done = await transition.run(() =>
      api.POST('/v1/impact-assessments/{id}', { params: { path: { id: assessment.id } }, body: { status } }),
    );
    if (done) onChange();
  }

  async function supersede() {
    const done = await transition.run(() =>
      api.POST('/v1/impact-assessments/{id}/supersede', { params: { path: { id: assessment.id } } }),
    );
    if (done) onChange();
  }

  return (
    <>
      <dl className="facts">
        <dt>Status</dt>
        <dd data-testid="assessment-status">{words(assessment.status)}</dd>
        <dt>Model</dt>
        <dd>
          {assessment.modelProvider ? `${assessment.modelProvider} ${assessment.modelVersion ?? ''}` : 'None'}
        </dd>
        <dt>Created</dt>
        <dd>
          {dateTime(assessment.createdAt)}
          {assessment.createdBy ? ` by ${actorName(assessment.createdBy)}` : ''}
        </dd>
        <dt>Signed off</dt>
        <dd>
          {assessment.signedOffAt
            ? `${dateTime(assessment.signedOffAt)} by ${actorName(assessment.signedOffBy)}`
            : 'Not yet'}
        </dd>
        {assessment.ledgerRecordId && (
          <>
            <dt>Approval record</dt>
            <dd>
              <Link to={`/ledger/records/${assessment.ledgerRecordId}`}>
                Ledger record and approval certificate
              </Link>
              {assessment.certificateId ? '' : ' (the certificate is being generated)'}
            </dd>
          </>
        )}
      </dl>

      <section aria-labelledby="assessment-actions-title" className="actions">
        <h2 id="assessment-actions-title">Sign-off</h2>
        {assessment.status === 'DRAFT' && (
          <button type="button" onClick={() => void move('PENDING_SIGNOFF')} disabled={transition.busy}>
            Submit for sign-off
          </button>
        )}
        {assessment.status === 'PENDING_SIGNOFF' &&
          (senior ? (
            <>
              <button type="button" onClick={() => void move('APPROVED')} disabled={transition.busy}>
                Approve
              </button>{' '}
              <button type="button" onClick={() => void move('REJECTED')} disabled={transition.busy}>
                Reject
              </button>{' '}
            </>
          ) : (
            <p>Waiting for a lead reviewer or a firm administrator to approve or reject it.</p>
          ))}
        {(assessment.status === 'PENDING_SIGNOFF' || assessment.status === 'REJECTED') && (
          <button type="button" onClick={() => void move('DRAFT')} disabled={transition.busy}>
            Back to draft
          </button>
        )}
        {assessment.status === 'APPROVED' && (
          <button type="button" onClick={() => void supersede()} disabled={transition.busy}>
            Supersede
          </button>
        )}
        {assessment.status === 'SUPERSEDED' && (
          <p>Superseded: kept for audit, no longer counts for the gate.</p>
        )}
        {transition.busy && <p role="status">Saving…</p>}
        <ErrorMessage error={transition.error} />
      </section>

      {editable ? (
        <AssessmentForm assessment={assessment} onSaved={onChange} />
      ) : (
        <OutcomesView assessment={assessment} />
      )}
    </>
  );
}

function OutcomesView({ assessment }: { assessment: Assessment }) {
  return (
    <section aria-labelledby="outcomes-title">
      <h2 id="outcomes-title">Assessment</h2>
      <p className="prose">{assessment.description}</p>
      <dl className="outcomes">
        {AREAS.map((area) => (
          <div key={area.key}>
            <dt>{area.label}</dt>
            <dd>
              <strong>{words(assessment.outcomes[area.key].riskRating)} risk.</strong>{' '}
              {assessment.outcomes[area.key].response || 'No response.'}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function AssessmentForm({ assessment, onSaved }: { assessment: Assessment; onSaved: () => void }) {
  const api = useApi();
  const save = useAction();
  const [useCase, setUseCase] = useState(assessment.useCase);
  const [description, setDescription] = useState(assessment.description);
  const [modelProvider, setModelProvider] = useState(assessment.modelProvider ?? '');
  const [modelVersion, setModelVersion] = useState(assessment.modelVersion ?? '');
  const [outcomes, setOutcomes] = useState<Outcomes>(assessment.outcomes);
  const [saved, setSaved] = useState(false);

  const setArea = (area: Area, patch: Partial<Outcomes[Area]>) =>
    setOutcomes((o) => ({ ...o, [area]: { ...o[area], ...patch } }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const done = await save.run(() =>
      api.POST('/v1/impact-assessments/{id}', {
        params: { path: { id: assessment.id } },
        body: {
          useCase,
          description,
          modelProvider: modelProvider.trim() || null,
          modelVersion: modelVersion.trim() || null,
          outcomes,
        },
      }),
    );
    if (done) {
      setSaved(true);
      onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="form" aria-labelledby="assessment-edit-title">
      <h2 id="assessment-edit-title">Edit the assessment</h2>
      <label htmlFor="edit-use-case">Use case</label>
      <input id="edit-use-case" required value={useCase} onChange={(e) => setUseCase(e.target.value)} />
      <label htmlFor="edit-description">Description</label>
      <textarea
        id="edit-description"
        required
        rows={3}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <label htmlFor="edit-provider">Model provider</label>
      <input id="edit-provider" value={modelProvider} onChange={(e) => setModelProvider(e.target.value)} />
      <label htmlFor="edit-version">Model version</label>
      <input id="edit-version" value={modelVersion} onChange={(e) => setModelVersion(e.target.value)} />
      {AREAS.map((area) => (
        <fieldset key={area.key}>
          <legend>{area.label}</legend>
          <label htmlFor={`edit-${area.key}-response`}>Response</label>
          <textarea
            id={`edit-${area.key}-response`}
            rows={2}
            value={outcomes[area.key].response}
            onChange={(e) => setArea(area.key, { response: e.target.value })}
          />
          <label htmlFor={`edit-${area.key}-risk`}>Risk rating</label>
          <select
            id={`edit-${area.key}-risk`}
            value={outcomes[area.key].riskRating}
            onChange={(e) => setArea(area.key, { riskRating: e.target.value as Risk })}
          >
            {RISKS.map((r) => (
              <option key={r} value={r}>
                {words(r)}
              </option>
            ))}
          </select>
        </fieldset>
      ))}
      <ErrorMessage error={save.error} />
      <button type="submit" disabled={save.busy}>
        {save.busy ? 'Saving…' : 'Save changes'}
      </button>
      {saved && <p role="status">Saved.</p>}
    </form>
  );
}
