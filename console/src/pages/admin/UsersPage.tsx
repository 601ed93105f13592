/** Users of the firm: invite one, change a role or the FG21/1 specialist flag, deactivate. */
import { useEffect, useState, type FormEvent } from 'react';
import type { components } from '../../../../clients/typescript/index';
import { dataOrThrow, useApi } from '../../app/api';
import { useSession } from '../../app/session';
import { DataTable, ErrorMessage, Loading, Page } from '../../app/ui';
import { useLoad } from '../../app/use-load';
import { dateTime, useAction, words } from '../common';

type User = components['schemas']['User'];
type Role = User['role'];
type Qualification = User['qualifications'][number];
const ROLES: Role[] = ['REVIEWER', 'LEAD_REVIEWER', 'FIRM_ADMIN'];
const QUALIFICATIONS: Qualification[] = ['CFA', 'CFP', 'DIP_PFS', 'CISI', 'IMC'];

/** A change to a user shown before the list says so; `completedAt` once its request answered. */
interface Pending {
  fields: Partial<User>;
  token: symbol;
  completedAt?: number;
}

export function UsersPage() {
  const api = useApi();
  const { user: me } = useSession();
  // Each answer says when its request started, so a change is replaced only by a list read after it completed.
  const users = useLoad(async () => {
    const startedAt = performance.now();
    return { startedAt, list: dataOrThrow(await api.GET('/v1/firm/me/users')) };
  }, [api]);
  const change = useAction();
  // A change shows at once and stays until a list read after its request completed replaces it (or, when the
  // change failed, restores the value). A list read while it ran (the reload of an earlier change) says nothing
  // of it: clearing the change then would show the old value for a moment.
  const [pending, setPending] = useState<Record<string, Pending>>({});
  useEffect(() => {
    const readAt = users.data?.startedAt;
    if (readAt === undefined) return;
    setPending((p) =>
      Object.fromEntries(
        Object.entries(p).filter(
          ([, change]) => change.completedAt === undefined || change.completedAt > readAt,
        ),
      ),
    );
  }, [users.data]);

  async function update(user: User, body: { role?: Role; specialistVulnerability?: boolean }) {
    const token = Symbol(user.id);
    setPending((p) => ({ ...p, [user.id]: { fields: { ...p[user.id]?.fields, ...body }, token } }));
    await change.run(() => api.POST('/v1/firm/me/users/{id}', { params: { path: { id: user.id } }, body }));
    const completedAt = performance.now();
    // Completed only if no later change of the same user started meanwhile (that one completes it).
    setPending((p) =>
      p[user.id]?.token === token ? { ...p, [user.id]: { ...p[user.id]!, completedAt } } : p,
    );
    users.reload();
  }

  async function deactivate(user: User) {
    if (!window.confirm(`Deactivate ${user.name}? They can no longer sign in.`)) return;
    const done = await change.run(() =>
      api.DELETE('/v1/firm/me/users/{id}', { params: { path: { id: user.id } } }),
    );
    if (done !== undefined) users.reload();
  }

  return (
    <Page title="Users">
      <InviteUser onInvited={users.reload} />
      <section aria-labelledby="user-list-title">
        <h2 id="user-list-title">People</h2>
        <ErrorMessage error={change.error} />
        {users.loading && !users.data ? (
          <Loading label="Loading users" />
        ) : users.error || !users.data ? (
          <ErrorMessage error={users.error} />
        ) : (
          <DataTable<User>
            caption="Users"
            rowKey={(row) => row.id}
            rows={users.data.list.map((u) => ({ ...u, ...pending[u.id]?.fields }))}
            columns={[
              { header: 'Name', cell: (u) => u.name },
              { header: 'Email', cell: (u) => u.email },
              {
                header: 'Role',
                cell: (u) =>
                  u.deactivatedAt ? (
                    words(u.role)
                  ) : (
                    <select
                      aria-label={`Role of ${u.name}`}
                      value={u.role}
                      disabled={change.busy || u.email === me?.email}
                      onChange={(e) => void update(u, { role: e.target.value as Role })}
                    >
                      {ROLES.map((r) => (
                        <option key={r} value={r}>
                          {words(r)}
                        </option>
                      ))}
                    </select>
                  ),
              },
              {
                header: 'Vulnerability specialist',
                cell: (u) => (
                  <input
                    type="checkbox"
                    aria-label={`${u.name} is a vulnerability specialist`}
                    checked={u.specialistVulnerability}
                    disabled={change.busy || u.deactivatedAt !== null}
                    onChange={(e) => void update(u, { specialistVulnerability: e.target.checked })}
                  />
                ),
              },
              {
                header: 'State',
                cell: (u) =>
                  u.deactivatedAt
                    ? `Deactivated ${dateTime(u.deactivatedAt)}`
                    : u.activatedAt
                      ? 'Active'
                      : 'Invited',
              },
              {
                header: 'Actions',
                cell: (u) =>
                  u.deactivatedAt || u.email === me?.email ? (
                    '—'
                  ) : (
                    <button type="button" onClick={() => void deactivate(u)} disabled={change.busy}>
                      Deactivate <span className="visually-hidden">{u.name}</span>
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

function InviteUser({ onInvited }: { onInvited: () => void }) {
  const api = useApi();
  const action = useAction();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [fcaRef, setFcaRef] = useState('');
  const [role, setRole] = useState<Role>('REVIEWER');
  const [specialist, setSpecialist] = useState(false);
  const [qualifications, setQualifications] = useState<Qualification[]>([]);
  const [invited, setInvited] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setInvited(null);
    const user = await action.run(() =>
      api.POST('/v1/firm/me/users', {
        body: {
          name,
          email,
          fcaRef: fcaRef.trim() || null,
          role,
          specialistVulnerability: specialist,
          qualifications,
        },
      }),
    );
    if (user) {
      setInvited(user.email);
      setName('');
      setEmail('');
      setFcaRef('');
      setQualifications([]);
      setSpecialist(false);
      onInvited();
    }
  }

  return (
    <details className="panel">
      <summary>Invite a user</summary>
      <form onSubmit={submit} className="form">
        <label htmlFor="invite-name">Name</label>
        <input id="invite-name" required value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="invite-email">Email address</label>
        <input
          id="invite-email"
          type="email"
          required
          autoComplete="off"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="invite-fca">FCA individual reference (optional, e.g. ABC12345)</label>
        <input id="invite-fca" value={fcaRef} onChange={(e) => setFcaRef(e.target.value)} />
        <label htmlFor="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {words(r)}
            </option>
          ))}
        </select>
        <fieldset>
          <legend>Qualifications</legend>
          {QUALIFICATIONS.map((q) => (
            <label key={q} className="check">
              <input
                type="checkbox"
                checked={qualifications.includes(q)}
                onChange={(e) =>
                  setQualifications((list) => (e.target.checked ? [...list, q] : list.filter((x) => x !== q)))
                }
              />{' '}
              {q.replace('_', ' ')}
            </label>
          ))}
        </fieldset>
        <label className="check">
          <input type="checkbox" checked={specialist} onChange={(e) => setSpecialist(e.target.checked)} />{' '}
          Vulnerability specialist (FG21/1)
        </label>
        <ErrorMessage error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Inviting…' : 'Invite'}
        </button>
        {invited && <p role="status">Invited {invited}.</p>}
      </form>
    </details>
  );
}
