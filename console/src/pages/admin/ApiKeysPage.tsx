/** API keys: list (name and prefix), create one (the full key is shown once, with a copy button), revoke. */
import { useState, type FormEvent } from 'react';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { SecretOnce, dateTime, useAction, useApiLoad } from '../common';

type ApiKey = components['schemas']['ApiKey'];
type Created = components['schemas']['ApiKeyCreated'];

export function ApiKeysPage() {
  const api = useApi();
  const keys = useApiLoad(() => api.GET('/v1/firm/me/api-keys'), [api]);
  const create = useAction();
  const revoke = useAction();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Created | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const key = await create.run(() => api.POST('/v1/firm/me/api-keys', { body: { name } }));
    if (key) {
      setCreated(key);
      setName('');
      keys.reload();
    }
  }

  async function remove(key: ApiKey) {
    if (!window.confirm(`Revoke the key "${key.name}"? Systems using it stop working.`)) return;
    const done = await revoke.run(() =>
      api.DELETE('/v1/firm/me/api-keys/{keyId}', { params: { path: { keyId: key.id } } }),
    );
    if (done !== undefined) keys.reload();
  }

  return (
    <Page title="API keys">
      <form onSubmit={submit} className="form inline-form" aria-labelledby="new-key-title">
        <h2 id="new-key-title">Create a key</h2>
        <label htmlFor="api-key-name">Key name</label>
        <input id="api-key-name" required value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={create.busy}>
          {create.busy ? 'Creating…' : 'Create key'}
        </button>
        <ErrorMessage error={create.error} />
      </form>
      {created && (
        <SecretOnce
          label={`Key "${created.name}":`}
          value={created.key}
          hint="Copy it now and store it in your secrets manager: it is shown only once and cannot be retrieved later."
        />
      )}
      <section aria-labelledby="key-list-title">
        <h2 id="key-list-title">Keys</h2>
        <ErrorMessage error={revoke.error} />
        {keys.loading && !keys.data ? (
          <Loading label="Loading API keys" />
        ) : keys.error || !keys.data ? (
          <ErrorMessage error={keys.error} />
        ) : keys.data.length === 0 ? (
          <p>No API key.</p>
        ) : (
          <DataTable<ApiKey>
            caption="API keys"
            rowKey={(row) => row.id}
            rows={keys.data}
            columns={[
              { header: 'Name', cell: (k) => k.name },
              { header: 'Starts with', cell: (k) => <code>{k.keyPrefix}…</code> },
              { header: 'Created', cell: (k) => dateTime(k.createdAt) },
              {
                header: 'Actions',
                cell: (k) => (
                  <button type="button" onClick={() => void remove(k)} disabled={revoke.busy}>
                    Revoke <span className="visually-hidden">{k.name}</span>
                  </button>
                ),
              },
            ]}
          />
        )}
      </section>
    </Page>
  );
}
