/**
 * The governance, administration and ledger pages, for the console's one route table (app/routes.tsx spreads
 * this list into ROUTES). Governance and the ledger are for seniors (LEAD_REVIEWER, the compliance function) and
 * administrators; administration for FIRM_ADMIN only (the API refuses other roles anyway).
 */
import { lazy, Suspense } from 'react';
import type { ConsoleRoute } from '../app/routes';
import type { Role } from '../app/session';
import { ApiKeysPage } from './admin/ApiKeysPage';
import { DocumentTypesPage } from './admin/DocumentTypesPage';
import { SettingsPage } from './admin/SettingsPage';
import { UsersPage } from './admin/UsersPage';
import { WebhookDetailPage, WebhooksPage } from './admin/WebhooksPage';
import { AssessmentDetailPage } from './governance/AssessmentDetailPage';
import { AssessmentsPage } from './governance/AssessmentsPage';
import { IncidentDetailPage } from './governance/IncidentDetailPage';
import { IncidentsPage } from './governance/IncidentsPage';
import { ReportsPage } from './governance/ReportsPage';
import { PageErrorBoundary } from './PageErrorBoundary';
import { Loading } from '../app/ui';
import { CertificatesPage } from './ledger/CertificatesPage';
import { LedgerPage } from './ledger/LedgerPage';
import { LedgerRecordPage } from './ledger/LedgerRecordPage';

// The dashboard's charts (recharts) are most of the bundle: loaded when the dashboard is first opened.
const GovernanceDashboard = lazy(() =>
  import('./governance/GovernanceDashboard').then((m) => ({ default: m.GovernanceDashboard })),
);
const dashboard = (
  <Suspense fallback={<Loading label="Loading the dashboard" />}>
    <GovernanceDashboard />
  </Suspense>
);

// The dashboard is /governance/dashboard, not /governance: a navigation link is current for every path under
// its own, and /governance would mark it current on the incidents, assessments and reports pages too.
/**
 * Each page inside its own error boundary (keyed by its path, so another page does not inherit a failure): a failing
 * page says so in words, the console stays up.
 */
function guarded(routes: ConsoleRoute[]): ConsoleRoute[] {
  return routes.map((r) => ({
    ...r,
    element: <PageErrorBoundary key={r.path}>{r.element}</PageErrorBoundary>,
  }));
}

const SENIORS: readonly Role[] = ['FIRM_ADMIN', 'LEAD_REVIEWER'];
const ADMINS: readonly Role[] = ['FIRM_ADMIN'];

export const GOVERNANCE_ROUTES: ConsoleRoute[] = guarded([
  { path: '/governance/dashboard', element: dashboard, title: 'Governance', roles: SENIORS },
  { path: '/governance/incidents', element: <IncidentsPage />, title: 'Incidents', roles: SENIORS },
  {
    path: '/governance/incidents/:id',
    element: <IncidentDetailPage />,
    title: 'Incident',
    roles: SENIORS,
    nav: false,
  },
  {
    path: '/governance/assessments',
    element: <AssessmentsPage />,
    title: 'Impact assessments',
    roles: SENIORS,
  },
  {
    path: '/governance/assessments/:id',
    element: <AssessmentDetailPage />,
    title: 'Impact assessment',
    roles: SENIORS,
    nav: false,
  },
  { path: '/governance/reports', element: <ReportsPage />, title: 'Reports log', roles: SENIORS },
]);

export const LEDGER_ROUTES: ConsoleRoute[] = guarded([
  { path: '/ledger', element: <LedgerPage />, title: 'Ledger', roles: SENIORS },
  {
    path: '/ledger/records/:id',
    element: <LedgerRecordPage />,
    title: 'Ledger record',
    roles: SENIORS,
    nav: false,
  },
  {
    path: '/ledger/certificates',
    element: <CertificatesPage />,
    title: 'Certificates',
    roles: SENIORS,
    nav: false,
  },
]);

export const ADMIN_ROUTES: ConsoleRoute[] = guarded([
  { path: '/admin/users', element: <UsersPage />, title: 'Users', roles: ADMINS },
  { path: '/admin/document-types', element: <DocumentTypesPage />, title: 'Document types', roles: ADMINS },
  { path: '/admin/api-keys', element: <ApiKeysPage />, title: 'API keys', roles: ADMINS },
  { path: '/admin/webhooks', element: <WebhooksPage />, title: 'Webhooks', roles: ADMINS },
  {
    path: '/admin/webhooks/:id',
    element: <WebhookDetailPage />,
    title: 'Webhook',
    roles: ADMINS,
    nav: false,
  },
  { path: '/admin/settings', element: <SettingsPage />, title: 'Settings', roles: ADMINS },
]);
