import { Match, type Template } from 'aws-cdk-lib/assertions';
import { ROUTES, httpRoutes } from '../../shared/routes.js';
import { ENV } from '../../shared/runtime/config.js';
import { WORKERS } from '../../shared/workers.js';
import { synth } from './synth.js';
import { lambdaFunction, referencedId, resources, routeFunctionId } from './template-graph.js';

const routeKey = (method: string, path: string) => `${method} ${path}`;

describe('HTTP API', () => {
  let template: Template;
  beforeAll(() => {
    template = synth();
  });

  it('has one function per route plus one per worker', () => {
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + WORKERS.length);
  });

  it('serves every route key of the route table, and nothing else', () => {
    const keys = httpRoutes().map((r) => routeKey(r.method, r.path));
    for (const key of keys) template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: key });
    template.resourceCountIs('AWS::ApiGatewayV2::Route', keys.length);
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
    const functions = Object.values(resources(template, 'AWS::Lambda::Function'));
    expect(functions).toHaveLength(ROUTES.length + WORKERS.length);
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

  it('gives every function its own log group with the stage retention', () => {
    const logGroups = resources(template, 'AWS::Logs::LogGroup');
    const ids = Object.values(resources(template, 'AWS::Lambda::Function')).map((fn) =>
      referencedId(fn.Properties.LoggingConfig.LogGroup),
    );
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(logGroups[id]?.Properties.RetentionInDays).toBe(14);
      expect(logGroups[id]?.DeletionPolicy).toBe('Delete');
    }
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
    template = synth({ routes: ROUTES });
  });

  it('reach the function of their /v1/review route, without a function of their own', () => {
    template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + WORKERS.length);
    expect(routeFunctionId(template, 'GET /v1/principal/jobs/{id}')).toBe(
      routeFunctionId(template, 'GET /v1/review/jobs/{id}'),
    );
  });

  it('may invoke that function through either path', () => {
    const functionId = routeFunctionId(template, 'GET /v1/review/jobs/{id}');
    const sourceArns = Object.values(resources(template, 'AWS::Lambda::Permission'))
      .filter((p) => referencedId(p.Properties.FunctionName) === functionId)
      .map((p) => JSON.stringify(p.Properties.SourceArn));
    expect(sourceArns.some((arn) => arn.includes('/v1/review/jobs/{id}'))).toBe(true);
    expect(sourceArns.some((arn) => arn.includes('/v1/principal/jobs/{id}'))).toBe(true);
  });
});
