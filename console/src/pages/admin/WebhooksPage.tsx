/**
 * Webhook endpoints: register one (URL and subscribed events; its signing secret is shown once), see each
 * endpoint's delivery log, redeliver a finished delivery, rotate the secret, deactivate.
 */
import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router-dom';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { Pager, SecretOnce, dateTime, hasNextPage, useAction, useApiLoad, usePaging, words } from '../common';
import { WEBHOOK_EVENT_NAMES } from '../../../../shared/ledger/event-types.ts';

type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];
const eventList = Object.values(WEBHOOK_EVENT_NAMES);
type EventName = (typeof eventList)[number];

export function WebhooksPage() {
  const api = useApi();
  const hooks = useApiLoad(() => api.GET('/v1/firm/me/webhooks'), [api]);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  return (
    <Page title="Webhooks">
      <RegisterWebhook
        onRegistered={(hook) => {
          setSecret({ url: hook.url, secret: hook.secret });
          hooks.reload();
        }}
      />
      {secret && (
        <SecretOnce
          label={`Signing secret of ${secret.url}:`}
          value={secret.secret}
          hint="Copy it into your receiver now: it verifies X-Service-Signature and is shown here only once."
        />
      )}
      <section aria-labelledby="webhook-list-title">
        <h2 id="webhook-list-title">Endpoints</h2>
        {hooks.loading && !hooks.data ? (
          <Loading label="Loading webhooks" />
        ) : hooks.error || !hooks.data ? (
          <ErrorMessage error={hooks.error} />
        ) : hooks.data.length === 0 ? (
          <p>No webhook endpoint.</p>
        ) : (
          <DataTable<Webhook>
            caption="Webhook endpoints"
            rowKey={(row) => row.id}
            rows={hooks.data}
            columns={[
              { header: 'URL', cell: (h) => <Link to={`/admin/webhooks/${h.id}`}>{h.url}</Link> },
              { header: 'Events', cell: (h) => h.events.join(', ') },
              {
                header: 'State',
                cell: (h) => (h.isActive ? 'Active' : `Deactivated ${dateTime(h.deactivatedAt)}`),
              },
              { header: 'Registered', cell: (h) => dateTime(h.createdAt) },
            ]}
          />
        )}
      </section>
    </Page>
  );
}

function RegisterWebhook({ onRegistered }: { onRegistered: (hook: Webhook) => void }) {
  const api = useApi();
  const action = useAction();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>([
    'document.approved',
    'document.modified',
    'document.rejected',
  ]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const hook = await action.run(() => api.POST('/v1/firm/me/webhooks', { body: { url, events } }));
    if (hook) {
      setUrl('');
      onRegistered(hook);
    }
  }

  return (
    <form onSubmit={submit} className="form" aria-labelledby="register-webhook-title">
      <h2 id="register-webhook-title">Register an endpoint</h2>
      <label htmlFor="webhook-url">Endpoint URL (https)</label>
      <input id="webhook-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
      <fieldset>
        <legend>Events to deliver</legend>
        <div className="check-grid">
          {eventList.map((name) => (
            <label key={name} className="check">
              <input
                type="checkbox"
                checked={events.includes(name)}
                onChange={(e) =>
                  setEvents((list) => (e.target.checked ? [...list, name] : list.filter((x) => x !== name)))
                }
              />{' '}
              {name}
            </label>
          ))}
        </div>
      </fieldset>
      <ErrorMessage error={action.error} />
      <button type="submit" disabled={action.busy || events.length === 0}>
        {action.busy ? 'Registering…' : 'Register webhook'}
      </button>
    </form>
  );
}

export function WebhookDetailPage() {
  const { id = '' } = useParams();
  const api = useApi();
  const hooks = useApiLoad(() => api.GET('/v1/firm/me/webhooks'), [api]);
  const paging = usePaging();
  const deliveries = useApiLoad(
    () =>
      api.GET('/v1/firm/me/webhooks/{id}/deliveries', {
        params: { path: { id }, query: { ...paging.query, pageSize: 25 } },
      }),
    [api, id, paging.query.page, paging.position],
  );
  const act = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const hook = hooks.data?.find((h) => h.id === id);

  async function redeliver(delivery: Delivery) {
    const done = await act.run(() =>
      api.POST('/v1/firm/me/webhooks/{id}/deliveries/{deliveryId}/redeliver', {
        params: { path: { id, deliveryId: delivery.id } },
      }),
    );
    if (done) deliveries.reload();
  }

  async function rotate() {
    const rotated = await act.run(() =>
      api.POST('/v1/firm/me/webhooks/{id}/rotate-secret', { params: { path: { id } } }),
    );
    if (rotated) setSecret(rotated.secret);
  }

  async function deactivate() {
    if (!window.confirm('Deactivate this endpoint? It will receive nothing more.')) return;
    const done = await act.run(() => api.DELETE('/v1/firm/me/webhooks/{id}', { params: { path: { id } } }));
    if (done !== undefined) hooks.reload();
  }

  return (
    <Page title="Webhook deliveries">
      <p>
        <Link to="/admin/webhooks">All webhooks</Link>
      </p>
      <ErrorMessage error={hooks.error} />
      {hook && (
        <>
          <dl className="facts">
            <dt>URL</dt>
            <dd className="break">{hook.url}</dd>
            <dt>Events</dt>
            <dd>{hook.events.join(', ')}</dd>
            <dt>State</dt>
            <dd>{hook.isActive ? 'Active' : `Deactivated ${dateTime(hook.deactivatedAt)}`}</dd>
          </dl>
          {hook.isActive && (
            <div className="actions">
              <button type="button" onClick={() => void deliveries.reload()} disabled={deliveries.loading}>
                Refresh deliveries
              </button>{' '}
              <button type="button" onClick={() => void rotate()} disabled={act.busy}>
                Rotate secret
              </button>{' '}
              <button type="button" onClick={() => void deactivate()} disabled={act.busy}>
                Deactivate
              </button>
            </div>
          )}
        </>
      )}
      {secret && (
        <SecretOnce
          label="New signing secret:"
          value={secret}
          hint="Copy it now; the previous secret keeps signing alongside it for the overlap window (24 hours)."
        />
      )}
      <ErrorMessage error={act.error} />
      <section aria-labelledby="delivery-log-title">
        <h2 id="delivery-log-title">Delivery log</h2>
        {deliveries.loading && !deliveries.data ? (
          <Loading label="Loading deliveries" />
        ) : deliveries.error || !deliveries.data ? (
          <ErrorMessage error={deliveries.error} />
        ) : deliveries.data.data.length === 0 &&
          paging.position === 1 &&
          !hasNextPage(deliveries.data.pagination) ? (
          <p>No delivery yet. Deliveries appear here once a subscribed event is recorded.</p>
        ) : (
          <>
            <DataTable<Delivery>
              caption="Deliveries"
              rowKey={(row) => row.id}
              rows={deliveries.data.data}
              columns={[
                { header: 'Event', cell: (d) => d.event },
                {
                  header: 'Record',
                  cell: (d) => <Link to={`/ledger/records/${d.recordId}`}>#{d.sequenceNumber}</Link>,
                },
                {
                  header: 'Status',
                  cell: (d) => <span data-delivery-status={d.status}>{words(d.status)}</span>,
                },
                { header: 'Attempts', cell: (d) => d.attempts },
                {
                  header: 'Last answer',
                  cell: (d) => (d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : (d.lastError ?? '—')),
                },
                { header: 'Created', cell: (d) => dateTime(d.createdAt) },
                {
                  header: 'Actions',
                  cell: (d) =>
                    d.status === 'DELIVERED' || d.status === 'FAILED' ? (
                      <button
                        type="button"
                        onClick={() => void redeliver(d)}
                        disabled={act.busy || !hook?.isActive}
                      >
                        Redeliver <span className="visually-hidden">record {d.sequenceNumber}</span>
                      </button>
                    ) : (
                      '—'
                    ),
                },
              ]}
            />
            <Pager info={deliveries.data.pagination} paging={paging} />
          </>
        )}
      </section>
    </Page>
  );
}
