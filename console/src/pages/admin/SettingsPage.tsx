/**
 * Firm settings: the bias and Consumer Duty thresholds and the impact-assessment gate. Only changed fields are
 * sent (a changed enforceImpactAssessments writes FIRM_SETTINGS_UPDATED on the ledger).
 */
import { useState, type FormEvent } from 'react';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { ErrorMessage, Loading, Page } from '../../app/ui';
import { useAction, useApiLoad } from '../common';

type Settings = components['schemas']['FirmSettings'];
type NumberField = Exclude<keyof Settings, 'enforceImpactAssessments'>;

const FIELDS: { key: NumberField; label: string; hint: string }[] = [
  {
    key: 'biasWarningThreshold',
    label: 'Bias warning threshold',
    hint: 'Rejection-rate delta from baseline (0 to 1)',
  },
  { key: 'biasAlertThreshold', label: 'Bias alert threshold', hint: 'At least the warning threshold' },
  {
    key: 'biasAbsoluteRejectionThreshold',
    label: 'Bias absolute rejection threshold',
    hint: 'Segment rate (0 to 1)',
  },
  { key: 'cdRejectionRateWarningThreshold', label: 'Consumer Duty rejection-rate warning', hint: '0 to 1' },
  { key: 'cdRejectionRateAlertThreshold', label: 'Consumer Duty rejection-rate alert', hint: '0 to 1' },
  { key: 'cdSlaComplianceWarningThreshold', label: 'SLA compliance warning below', hint: '0 to 1' },
  { key: 'cdSlaComplianceAlertThreshold', label: 'SLA compliance alert below', hint: '0 to 1' },
  { key: 'cdReadCompletionWarningThreshold', label: 'Read completion warning below', hint: '0 to 1' },
];

export function SettingsPage() {
  const api = useApi();
  const firm = useApiLoad(() => api.GET('/v1/firm/me'), [api]);
  return (
    <Page title="Firm settings">
      {firm.loading && !firm.data ? (
        <Loading label="Loading the firm's settings" />
      ) : firm.error || !firm.data ? (
        <ErrorMessage error={firm.error} />
      ) : (
        <>
          <dl className="facts">
            <dt>Firm</dt>
            <dd>{firm.data.name}</dd>
            <dt>FRN</dt>
            <dd>{firm.data.frnNumber}</dd>
            <dt>Plan</dt>
            <dd>{firm.data.plan}</dd>
          </dl>
          <SettingsForm
            key={JSON.stringify(firm.data.settings)}
            settings={firm.data.settings}
            onSaved={firm.reload}
          />
        </>
      )}
    </Page>
  );
}

function SettingsForm({ settings, onSaved }: { settings: Settings; onSaved: () => void }) {
  const api = useApi();
  const save = useAction();
  const [values, setValues] = useState<Record<NumberField, string>>(
    () =>
      Object.fromEntries(FIELDS.map((f) => [f.key, String(settings[f.key])])) as Record<NumberField, string>,
  );
  const [enforce, setEnforce] = useState(settings.enforceImpactAssessments);
  const [saved, setSaved] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(null);
    const body: components['schemas']['FirmSettingsUpdate'] = {};
    for (const f of FIELDS) {
      const value = Number(values[f.key]);
      if (value !== settings[f.key]) body[f.key] = value;
    }
    if (enforce !== settings.enforceImpactAssessments) body.enforceImpactAssessments = enforce;
    if (Object.keys(body).length === 0) {
      setSaved('Nothing changed.');
      return;
    }
    const done = await save.run(() => api.PATCH('/v1/firm/me/settings', { body }));
    if (done) {
      setSaved('Saved.');
      onSaved();
    }
  }

  return (
    <form onSubmit={submit} className="form" aria-labelledby="settings-title">
      <h2 id="settings-title">Thresholds and gate</h2>
      {FIELDS.map((f) => (
        <div key={f.key} className="field">
          <label htmlFor={`setting-${f.key}`}>{f.label}</label>
          <input
            id={`setting-${f.key}`}
            type="number"
            step="0.01"
            min="0"
            max="1"
            required
            aria-describedby={`setting-${f.key}-hint`}
            value={values[f.key]}
            onChange={(e) => setValues((v) => ({ ...v, [f.key]: e.target.value }))}
          />
          <span id={`setting-${f.key}-hint`} className="hint">
            {f.hint}
          </span>
        </div>
      ))}
      <label className="check">
        <input type="checkbox" checked={enforce} onChange={(e) => setEnforce(e.target.checked)} /> Require an
        approved impact assessment for AI-assisted documents
      </label>
      <ErrorMessage error={save.error} />
      <button type="submit" disabled={save.busy}>
        {save.busy ? 'Saving…' : 'Save settings'}
      </button>
      {saved && <p role="status">{saved}</p>}
    </form>
  );
}
