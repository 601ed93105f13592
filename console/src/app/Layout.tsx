import { NavLink, Route, Routes } from 'react-router-dom';
import { ROUTES } from './routes';
import { useSession, type SessionUser } from './session';
import { Page } from './ui';

const ROLE_WORDS: Record<SessionUser['role'], string> = {
  FIRM_ADMIN: 'Firm administrator',
  LEAD_REVIEWER: 'Senior reviewer',
  REVIEWER: 'Reviewer',
};

/** The signed-in console: banner, navigation built from ROUTES for the user's role, and the page. */
export function Layout(props: { user: SessionUser }) {
  const { signOut } = useSession();
  const { user } = props;
  const mine = ROUTES.filter((r) => r.roles.includes(user.role));
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="banner">
        <p className="brand">
          Governance Ledger <span className="firm">{user.firmName}</span>
        </p>
        <nav aria-label="Main">
          <ul>
            {mine
              .filter((r) => r.nav !== false)
              .map((r) => (
                <li key={r.path}>
                  <NavLink to={r.path} end={r.path === '/'}>
                    {r.title}
                  </NavLink>
                </li>
              ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            {user.name} <span className="role">({ROLE_WORDS[user.role]})</span>
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <Routes>
        {mine.map((r) => (
          <Route key={r.path} path={r.path} element={r.element} />
        ))}
        <Route path="*" element={<NotFound />} />
      </Routes>
    </>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>This page does not exist, or your role cannot open it.</p>
    </Page>
  );
}
