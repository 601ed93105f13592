import { ROUTE_AREAS, httpRoutes } from '../../shared/routes.js';
import { shadowedRouteKeys } from '../../shared/routes/shadowed-keys.js';
import { synthTemplates, type StackTemplate } from './synth.js';
import { resources } from './template-graph.js';

/** CloudFormation refuses a template of more than 500 resources; keep each far below for new routes. */
const TEMPLATE_BUDGET = 300;
/**
 * The root holds every route key and the monitoring; raised from 300 on 2026-11-28 (docs/architecture.md §9: the
 * next move is monitoring into a nested stack of its own, with new alarm names).
 */
const ROOT_BUDGET = 350;

/**
 * Logical ids of the resources whose replacement would lose data or change what clients hold (tables,
 * buckets, the signing key and its alias, queues and their dead letters, the user pool and its client, log
 * groups, the API and its stage, whose id is in the URL). CloudFormation replaces a resource whose logical id
 * changes, so these must stay as they are: renaming or moving one of their constructs needs a migration.
 */
const STATEFUL: Record<string, string[]> = {
  'AWS::DynamoDB::Table': ['DataMainTable7D30227F', 'DataLedgerTable126E989E'],
  'AWS::S3::Bucket': [
    'DataImmutableBucket5CA28D16',
    'DataUploadsBucketF0C3B642',
    'DataCertificatesBucketE7F5F061',
  ],
  'AWS::KMS::Key': ['LedgerSigningKey8DA431AD'],
  'AWS::KMS::Alias': ['LedgerSigningKeyAlias9F489902'],
  'AWS::SQS::Queue': [
    'QueuesLedgerArchiveQueueA037CF35',
    'QueuesLedgerArchiveDeadLetterQueue2508859D',
    'QueuesIntegrityVerifyQueueFA5D6658',
    'QueuesIntegrityVerifyDeadLetterQueue8902E1DC',
    'QueuesReportingQueueCE33CFEF',
    'QueuesReportingDeadLetterQueue4B761A09',
    'QueuesWebhooksQueue583B0412',
    'QueuesWebhooksDeadLetterQueue5715EDD0',
    'QueuesCertificatesQueueEF1CCFF7',
    'QueuesCertificatesDeadLetterQueueF1AC0310',
  ],
  'AWS::Cognito::UserPool': ['AuthUserPool8115E87F'],
  'AWS::Cognito::UserPoolClient': ['AuthUserPoolApiClient9CFE2E12'],
  'AWS::Logs::LogGroup': ['ApiAccessLogs50B185DB', 'ApiRouteLogs7DDC3111', 'WorkersLogsE28D5C5A'],
  'AWS::ApiGatewayV2::Api': ['ApiHttpApi4C294DC0'],
  'AWS::ApiGatewayV2::Stage': ['ApiHttpApiDefaultStageE708EF42'],
};

describe.each(['dev', 'prod'])('the %s templates', (stage) => {
  let templates: StackTemplate[];
  let root: StackTemplate;
  beforeAll(() => {
    templates = synthTemplates({ stage });
    root = templates[0]!;
  });

  it(`hold at most ${ROOT_BUDGET} resources in the root and ${TEMPLATE_BUDGET} in each nested stack`, () => {
    const counts = templates.map(({ path, template }, i) => ({
      path,
      count: Object.keys((template.toJSON() as { Resources: object }).Resources).length,
      budget: i === 0 ? ROOT_BUDGET : TEMPLATE_BUDGET,
    }));
    expect(counts.filter(({ count, budget }) => count > budget)).toEqual([]);
  });

  it('give each route area of the route table a nested stack with its functions', () => {
    const nested = templates.slice(1);
    expect(nested).toHaveLength(Object.keys(ROUTE_AREAS).length);
    for (const routes of Object.values(ROUTE_AREAS)) {
      const descriptions = routes.map((route) => `${route.method} ${route.path}: ${route.summary}`);
      const home = nested.filter(({ template }) =>
        Object.values(resources(template, 'AWS::Lambda::Function')).some((fn) =>
          descriptions.includes(fn.Properties.Description as string),
        ),
      );
      expect(home).toHaveLength(1);
      home[0]!.template.resourceCountIs('AWS::Lambda::Function', routes.length);
    }
  });

  it('keep every stateful resource in the root stack under its pinned logical id', () => {
    for (const [type, ids] of Object.entries(STATEFUL)) {
      const inRoot = Object.keys(resources(root.template, type));
      expect(inRoot).toEqual(expect.arrayContaining(ids));
      // New ones (a queue for a new worker) belong to the root stack too, beside the pinned ones.
      for (const { path, template } of templates.slice(1))
        expect({ path, type, ids: Object.keys(resources(template, type)) }).toEqual({ path, type, ids: [] });
    }
  });

  it('keep every route key in the root stack, where it was before the split', () => {
    // API Gateway allows a route key once per API: a route moved to another stack would be created before its
    // old self is deleted, and the update would fail.
    const routes = resources(root.template, 'AWS::ApiGatewayV2::Route');
    // Every (method, path), the $default route and the keys it answers for (shared/routes/shadowed-keys.ts).
    expect(Object.keys(routes)).toHaveLength(
      httpRoutes().length + 1 + shadowedRouteKeys(httpRoutes()).length,
    );
    expect(routes).toMatchObject({
      ApiHttpApiGEThealth60A18DF0: { Properties: { RouteKey: 'GET /health' } },
      ApiHttpApiGETv1reviewjobsid7829836B: { Properties: { RouteKey: 'GET /v1/review/jobs/{id}' } },
      ApiHttpApiGETv1principaljobsidE5300BB6: { Properties: { RouteKey: 'GET /v1/principal/jobs/{id}' } },
    });
  });
});
