import { Link } from 'react-router-dom';
import { ROUTES } from '../app/routes';
import { useSession } from '../app/session';
import { Page } from '../app/ui';

/** Where sign-in lands: who you are and the pages your role opens. */
export function HomePage() {
  const { user } = useSession();
  if (!user) return null;
  const pages = ROUTES.filter((r) => r.path !== '/' && r.nav !== false && r.roles.includes(user.role));
  return (
    <Page title={`Welcome, ${user.name}`}>
      <p>
        Signed in as {user.email} at {user.firmName}.
      </p>
      {pages.length ? (
        <ul className="link-list">
          {pages.map((r) => (
            <li key={r.path}>
              <Link to={r.path}>{r.title}</Link>
            </li>
          ))}
        </ul>
      ) : null}
    </Page>
  );
}
