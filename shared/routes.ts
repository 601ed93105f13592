import * as certificates from './routes/certificates.js';
import * as documentTypes from './routes/document-types.js';
import * as firm from './routes/firm.js';
import * as impactAssessments from './routes/impact-assessments.js';
import * as incidents from './routes/incidents.js';
import * as governanceReports from './routes/governance-reports.js';
import * as integrity from './routes/integrity.js';
import * as ledger from './routes/ledger.js';
import * as platform from './routes/platform.js';
import * as reportLog from './routes/report-log.js';
import * as review from './routes/review.js';
import * as users from './routes/users.js';
import * as webhooks from './routes/webhooks.js';
import type { HttpMethod, RouteDef } from './routes/route.js';

/**
 * The route table by area, one module of shared/routes/ each: the CDK stack deploys each area as a nested stack
 * (lib/route-area.ts), so a new route needs no change outside its area's module.
 */
export const ROUTE_AREAS: Readonly<Record<string, readonly RouteDef[]>> = {
  platform: Object.values(platform),
  ledger: Object.values(ledger),
  certificates: Object.values(certificates),
  integrity: Object.values(integrity),
  firm: Object.values(firm),
  users: Object.values(users),
  documentTypes: Object.values(documentTypes),
  review: Object.values(review),
  impactAssessments: Object.values(impactAssessments),
  incidents: Object.values(incidents),
  reportLog: Object.values(reportLog),
  governanceReports: Object.values(governanceReports),
  webhooks: Object.values(webhooks),
} as Record<string, RouteDef[]>;

/**
 * The route table: the single source for the CDK stack (one Lambda per route), the embedded local server
 * and the OpenAPI description.
 */
export const ROUTES: readonly RouteDef[] = Object.values(ROUTE_AREAS).flat();

export interface HttpRoute {
  method: HttpMethod;
  path: string;
  route: RouteDef;
  /** True for the /v1/principal alias of a /v1/review route. */
  alias: boolean;
}

const REVIEW_PREFIX = '/v1/review/';
const PRINCIPAL_PREFIX = '/v1/principal/';

/** Every (method, path) the API serves: each route, plus the /v1/principal alias of each /v1/review route. */
export function httpRoutes(routes: readonly RouteDef[] = ROUTES): HttpRoute[] {
  return routes.flatMap((route) => {
    const primary: HttpRoute = { method: route.method, path: route.path, route, alias: false };
    if (!route.path.startsWith(REVIEW_PREFIX)) return [primary];
    return [
      primary,
      { ...primary, path: PRINCIPAL_PREFIX + route.path.slice(REVIEW_PREFIX.length), alias: true },
    ];
  });
}
