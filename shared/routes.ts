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
import * as witnesses from './routes/witnesses.js';
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
  witnesses: Object.values(witnesses),
} as Record<string, RouteDef[]>;

/**
 * The route table: the single source for the CDK stack (one Lambda per route), the embedded local server
 * and the OpenAPI description.
 */
export const ROUTES: readonly RouteDef[] = Object.values(ROUTE_AREAS).flat();

export interface HttpRoute {
  method: HttpMethod | 'HEAD';
  path: string;
  route: RouteDef;
  /** True for the /v1/principal alias of a /v1/review route. */
  alias: boolean;
}

const REVIEW_PREFIX = '/v1/review/';
const PRINCIPAL_PREFIX = '/v1/principal/';

/**
 * Every (method, path) the API serves: each route, its HEAD where the route declares one, plus the
 * /v1/principal alias of each /v1/review route.
 */
export function httpRoutes(routes: readonly RouteDef[] = ROUTES): HttpRoute[] {
  return routes.flatMap((route) => {
    const methods = route.head && route.method === 'GET' ? [route.method, 'HEAD' as const] : [route.method];
    const paths = route.path.startsWith(REVIEW_PREFIX)
      ? [route.path, PRINCIPAL_PREFIX + route.path.slice(REVIEW_PREFIX.length)]
      : [route.path];
    return paths.flatMap((path, i) => methods.map((method) => ({ method, path, route, alias: i > 0 })));
  });
}

/**
 * The function behind API Gateway's `$default` route, which gets every request no route key matches: it
 * matches the path against httpRoutes() and answers 405 METHOD_NOT_ALLOWED with `Allow` for a known path, 404
 * NOT_FOUND for any other (the local gateway answers the same with the same matcher). One function for the
 * whole table, so no resource is added per path; it touches nothing.
 */
export const UNMATCHED_ROUTE = {
  name: 'unmatchedRoute',
  handler: 'functions/platform/unmatched-route',
  description: '$default: 405 with Allow for a known path with another method, else 404',
} as const;
