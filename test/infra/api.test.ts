import { Match, type Template } from 'aws-cdk-lib/assertions';
import { shadowedRouteKeys } from '../../shared/routes/shadowed-keys.js';
import { ROUTES, ROUTE_AREAS, UNMATCHED_ROUTE, httpRoutes } from '../../shared/routes.js';
import { ENV } from '../../shared/runtime/config.js';
import { WORKERS } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import {
  functionStatements,
  lambdaFunction,
  referencedId,
  resources,
  routeFunctionId,
} from './template-graph.js';

const routeKey = (method: string, path: string) => `${method} ${path}`;

/** The service's functions: every Lambda but CDK's own deploy-time handler (the console's BucketDeployment). */
const serviceFunctions = (template: Template) =>
  Object.entries(resources(template, 'AWS::Lambda::Function'))
    .filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'))
    .map(([, fn]) => fn);

describe('HTTP API', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('has one function per route plus one per worker, and the $default function', () => {
    expect(serviceFunctions(template)).toHaveLength(ROUTES.length + WORKERS.length + 1);
  });

  it('serves every route key of the route table and $default, and nothing else but the shadowed keys', () => {
    const shadowed = shadowedRouteKeys(httpRoutes()).map((r) => routeKey(r.method, r.path));
    const keys = [...httpRoutes().map((r) => routeKey(r.method, r.path)), '$default', ...shadowed];
    for (const key of keys) template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    template.resourceCountIs('AWS::ApiGatewayV2::Route', keys.length);
  });

  it('sends a method a path lacks to $default, not to a parameter path of that method', () => {
    expect(routeFunctionId(template, routeKey('POST', '/v1/incidents/stats'))).toBe(
      routeFunctionId(template, '$default'),
    );
  });

  it('answers HEAD on the public GETs that declare it with the GET route function', () => {
    const heads = httpRoutes().filter((r) => r.method === 'HEAD');
    expect(heads.map((r) => r.path).sort()).toEqual(
      [
        '/.well-known/signing-key',
        '/.well-known/signing-keys',
        '/health',
        '/openapi.json',
        '/v1/verify/{certificateId}',
        '/verify/{certificateId}',
        '/verify/offline',
      ].sort(),
    );
    for (const { path, route } of heads) {
      expect(route.auth.kind).toBe('public');
      expect(routeFunctionId(template, routeKey('HEAD', path))).toBe(
        routeFunctionId(template, routeKey('GET', path)),
      );
    }
  });

  it('sends every unmatched request ($default) to one function that is granted nothing', () => {
    const functionId = routeFunctionId(template, '$default');
    expect(lambdaFunction(template, functionId).Properties).toMatchObject({
      Description: UNMATCHED_ROUTE.description,
      Environment: {
        Variables: { NODE_OPTIONS: '--enable-source-maps', [ENV.runtime]: 'aws', [ENV.stage]: 'dev' },
      },
    });
    const actions = functionStatements(template, functionId).flatMap((statement) => statement.Action);
    expect(actions.sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'NONE',
    });
  });

  it('wires each route to its own function', () => {
    const functionIds = ROUTES.map((route) => routeFunctionId(template, routeKey(route.method, route.path)));
    expect(new Set(functionIds).size).toBe(ROUTES.length);
    ROUTES.forEach((route, i) => {
      expect(lambdaFunction(template, functionIds[i]!).Properties.Description).toBe(
        `${route.method} ${route.path}: ${route.summary}`,
      );
    });
  });

  it('runs every function on Node 22, ARM64, with tracing, source maps and the stage in its environment', () => {
    const functions = serviceFunctions(template);
    expect(functions).toHaveLength(ROUTES.length + WORKERS.length + 1);
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        Environment: {
          Variables: { NODE_OPTIONS: '--enable-source-maps', [ENV.runtime]: 'aws', [ENV.stage]: 'dev' },
        },
      });
    }
  });

  it('logs every function to a log group with the stage retention (routes share one, workers another)', () => {
    const logGroups = resources(template, 'AWS::Logs::LogGroup');
    const ids = serviceFunctions(template).map((fn) => referencedId(fn.Properties.LoggingConfig.LogGroup));
    expect(ids).toHaveLength(ROUTES.length + WORKERS.length + 1);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) {
      expect(logGroups[id]?.Properties.RetentionInDays).toBe(14);
      expect(logGroups[id]?.DeletionPolicy).toBe('Delete');
    }
  });

  it('gives PLATFORM_WITNESSES to the witness routes and the public certificate check, and to no other route', () => {
    const setting =
      'witness.example.org/w+12345678+BKpAHKmWwVLqxg3ihLcPvn5xgQ3jdL5oVCBYoxrtzHfb https://witness.example.org/w';
    const withWitnesses = synth({ platformWitnesses: setting });
    const readers = ROUTES.filter((route) => {
      const fn = lambdaFunction(
        withWitnesses,
        routeFunctionId(withWitnesses, routeKey(route.method, route.path)),
      );
      return fn.Properties.Environment?.Variables?.[ENV.platformWitnesses] === setting;
    }).map((route) => route.operationId);
    expect(readers.sort()).toEqual(
      [
        'listWitnesses',
        'createWitness',
        'deleteWitness',
        'verifyCertificate',
        'verifyCertificatePage',
      ].sort(),
    );
  });

  it('keeps route functions inside the API Gateway integration timeout', () => {
    for (const route of ROUTES) {
      const fn = lambdaFunction(template, routeFunctionId(template, routeKey(route.method, route.path)));
      expect(fn.Properties.Timeout).toBeLessThan(30);
    }
  });

  it('configures OIDC only where a credential is accepted', () => {
    for (const route of ROUTES) {
      const variables = lambdaFunction(
        template,
        routeFunctionId(template, routeKey(route.method, route.path)),
      ).Properties.Environment.Variables as Record<string, unknown>;
      const oidc = [ENV.oidcIssuer, ENV.oidcAudience, ENV.oidcJwksUrl, ENV.oidcFirmClaim];
      if (route.auth.kind === 'public') {
        for (const name of oidc) expect(variables).not.toHaveProperty(name);
        // A public route touches the main table only when it declares it (certificate verification does).
        if (!route.permissions.main) expect(variables).not.toHaveProperty(ENV.mainTable);
      } else {
        for (const name of [...oidc, ENV.mainTable]) expect(variables).toHaveProperty(name);
      }
    }
  });

  it('throttles the default stage, writes access logs and outputs the URL', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 40, ThrottlingRateLimit: 20 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('routeKey') },
    });
    template.hasOutput('ApiUrl', { Value: Match.anyValue() });
    synth({ stage: 'prod' }).hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingBurstLimit: 400, ThrottlingRateLimit: 200 },
    });
  });
});

describe('/v1/principal aliases', () => {
  let template: Template;
  beforeAll(() => {
    template = synth({ routeAreas: ROUTE_AREAS });
  });

  it('reach the function of their /v1/review route, without a function of their own', () => {
    expect(serviceFunctions(template)).toHaveLength(ROUTES.length + WORKERS.length + 1);
    expect(routeFunctionId(template, 'GET /v1/principal/jobs/{id}')).toBe(
      routeFunctionId(template, 'GET /v1/review/jobs/{id}'),
    );
  });

  it('may invoke that function, through either path, only by the API role', () => {
    const functionId = routeFunctionId(template, 'GET /v1/review/jobs/{id}');
    const routes = Object.values(resources(template, 'AWS::ApiGatewayV2::Route')).filter((route) =>
      ['GET /v1/review/jobs/{id}', 'GET /v1/principal/jobs/{id}'].includes(route.Properties.RouteKey),
    );
    expect(routes).toHaveLength(2);
    const integrations = resources(template, 'AWS::ApiGatewayV2::Integration');
    const credentials = new Set(
      Object.values(integrations).map((integration) => referencedId(integration.Properties.CredentialsArn)),
    );
    expect(credentials.size).toBe(1);
    const [roleId] = [...credentials];
    const role = resources(template, 'AWS::IAM::Role')[roleId!]!;
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain('apigateway.amazonaws.com');
    // CDK moves statements beyond the inline policy's size limit into managed "overflow" policies.
    const invokeStatements = [
      ...Object.values(resources(template, 'AWS::IAM::Policy')),
      ...Object.values(resources(template, 'AWS::IAM::ManagedPolicy')),
    ]
      .filter((policy) => (policy.Properties.Roles ?? []).some((r: unknown) => referencedId(r) === roleId))
      .flatMap(
        (policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[],
      );
    expect(invokeStatements.every((statement) => statement.Action === 'lambda:InvokeFunction')).toBe(true);
    const invocable = invokeStatements.flatMap((statement) =>
      ([] as unknown[]).concat(statement.Resource).map((resource) => referencedId(resource)),
    );
    expect(invocable).toContain(functionId);
    // Every route function and the $default one.
    expect(new Set(invocable).size).toBe(ROUTES.length + 1);
    template.resourceCountIs(
      'AWS::Lambda::Permission',
      WORKERS.filter((w) => w.trigger.kind === 'schedule').length,
    );
  });
});
