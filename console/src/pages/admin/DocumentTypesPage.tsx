/** Document types: the platform defaults and the firm's own, each with its review checklist; add or edit one. */
import { useState, type FormEvent } from 'react';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { ErrorMessage, Loading, Page } from '../../app/ui';
import { useAction, useApiLoad } from '../common';

type DocumentType = components['schemas']['DocumentType'];

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

export function DocumentTypesPage() {
  const api = useApi();
  const types = useApiLoad(() => api.GET('/v1/firm/me/document-types'), [api]);
  return (
    <Page title="Document types">
      <NewDocumentType onCreated={types.reload} />
      {types.loading && !types.data ? (
        <Loading label="Loading document types" />
      ) : types.error || !types.data ? (
        <ErrorMessage error={types.error} />
      ) : (
        <ul className="cards">
          {types.data.map((t) => (
            <li key={t.slug} className="card">
              <DocumentTypeCard type={t} onSaved={types.reload} />
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

function DocumentTypeCard({ type, onSaved }: { type: DocumentType; onSaved: () => void }) {
  const api = useApi();
  const save = useAction();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(type.name);
  const [items, setItems] = useState(type.checklistItems.join('\n'));
  const idBase = `doctype-${type.slug}`;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await save.run(() =>
      api.PATCH('/v1/firm/me/document-types/{slug}', {
        params: { path: { slug: type.slug } },
        body: { name, checklistItems: lines(items) },
      }),
    );
    if (done) {
      setEditing(false);
      onSaved();
    }
  }

  return (
    <article aria-labelledby={`${idBase}-title`}>
      <h2 id={`${idBase}-title`}>
        {type.name} <code>{type.slug}</code>
      </h2>
      <p>{type.firmId === 'platform' ? 'Platform default' : 'Defined by the firm'}</p>
      {editing ? (
        <form onSubmit={submit} className="form">
          <label htmlFor={`${idBase}-name`}>Name</label>
          <input id={`${idBase}-name`} required value={name} onChange={(e) => setName(e.target.value)} />
          <label htmlFor={`${idBase}-items`}>Checklist items (one per line)</label>
          <textarea
            id={`${idBase}-items`}
            rows={6}
            value={items}
            onChange={(e) => setItems(e.target.value)}
          />
          <ErrorMessage error={save.error} />
          <button type="submit" disabled={save.busy}>
            {save.busy ? 'Saving…' : 'Save'}
          </button>{' '}
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <ol>
            {type.checklistItems.map((item) => (
              <li key={item}>{item}</li>
            ))}
          </ol>
          <button type="button" onClick={() => setEditing(true)}>
            Edit <span className="visually-hidden">{type.name}</span>
          </button>
        </>
      )}
    </article>
  );
}

function NewDocumentType({ onCreated }: { onCreated: () => void }) {
  const api = useApi();
  const action = useAction();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [items, setItems] = useState('');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await action.run(() =>
      api.POST('/v1/firm/me/document-types', { body: { slug, name, checklistItems: lines(items) } }),
    );
    if (created) {
      setSlug('');
      setName('');
      setItems('');
      onCreated();
    }
  }

  return (
    <details className="panel">
      <summary>Add a document type</summary>
      <form onSubmit={submit} className="form">
        <label htmlFor="doctype-slug">Slug (upper-case letters and underscores, e.g. PENSION_TRANSFER)</label>
        <input
          id="doctype-slug"
          required
          pattern="[A-Z][A-Z_]*"
          value={slug}
          onChange={(e) => setSlug(e.target.value.toUpperCase())}
        />
        <label htmlFor="doctype-name">Name</label>
        <input id="doctype-name" required value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="doctype-items">Checklist items (one per line)</label>
        <textarea
          id="doctype-items"
          required
          rows={5}
          value={items}
          onChange={(e) => setItems(e.target.value)}
        />
        <ErrorMessage error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add document type'}
        </button>
      </form>
    </details>
  );
}
