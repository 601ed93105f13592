import type { ReactNode } from 'react';
import { ADMIN_ROUTES, GOVERNANCE_ROUTES, LEDGER_ROUTES } from '../pages/areas';
import { HomePage } from '../pages/HomePage';
import { JobPage } from '../pages/review/JobPage';
import { ReviewQueuePage } from '../pages/review/ReviewQueuePage';
import type { Role } from './session';

export interface ConsoleRoute {
  /** Path under /console (react-router syntax: `/review/jobs/:id`). */
  path: string;
  element: ReactNode;
  /** The navigation label (and the page's usual heading). */
  title: string;
  /** Who sees it; a route outside the user's roles is neither linked nor reachable. */
  roles: readonly Role[];
  /** False for detail pages reached from another page (not in the navigation). Default true. */
  nav?: boolean;
}

export const EVERYONE: readonly Role[] = ['FIRM_ADMIN', 'LEAD_REVIEWER', 'REVIEWER'];

/**
 * THE route table of the console: the navigation and the router are both built from it. Each area appends
 * its pages here (reviewer, governance, administration, ledger).
 */
export const ROUTES: ConsoleRoute[] = [
  { path: '/', element: <HomePage />, title: 'Home', roles: EVERYONE },
  // Reviewer (issue 16, part 5).
  { path: '/review', element: <ReviewQueuePage />, title: 'Review queue', roles: EVERYONE },
  { path: '/review/jobs/:id', element: <JobPage />, title: 'Review job', roles: EVERYONE, nav: false },
  // Compliance, ledger and administration (console/src/pages/areas.tsx).
  ...GOVERNANCE_ROUTES,
  ...LEDGER_ROUTES,
  ...ADMIN_ROUTES,
];
