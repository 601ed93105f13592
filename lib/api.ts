import { CfnOutput, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnRoute,
  HttpApi,
  HttpIntegration,
  HttpIntegrationType,
  HttpMethod,
  HttpRouteKey,
  IntegrationCredentials,
  LogGroupLogDestination,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { shadowedRouteKeys } from '../shared/routes/shadowed-keys.js';
import { httpRoutes, UNMATCHED_ROUTE } from '../shared/routes.js';
import type { RouteDef } from '../shared/routes/route.js';
import type { ServiceResources } from './permissions.js';
import { acknowledge } from './nag.js';
import { pascal } from './queues.js';
import { RouteArea } from './route-area.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface ApiProps {
  stage: StageSettings;
  /** The route table by area: each area becomes a nested stack (lib/route-area.ts). */
  routeAreas: Readonly<Record<string, readonly RouteDef[]>>;
  resources: ServiceResources;
}

/**
 * The HTTP API: one function per route of the route table, each (method, path) of httpRoutes() wired to its
 * route's function, so a /v1/principal alias reaches the very function of its /v1/review route. The API, its
 * stage, route keys, logs and invoke role live in this stack; each area's functions and integrations live in a
 * nested stack of their own (lib/route-area.ts), which keeps every template far below CloudFormation's 500
 * resources (docs/architecture.md §9).
 * Authentication happens in the functions (API key or OIDC token, see shared/http/handler.ts), which is why
 * the routes carry no API Gateway authorizer.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
  /** The stage's JSON access logs (route key and status of every request): lib/monitoring.ts counts 5xx per area. */
  readonly accessLogs: LogGroup;
  readonly url: string;
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { stage, resources } = props;
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: `gls-${stage.name}-api`,
      description: `Governance ledger (${stage.name})`,
      // The default stage is added below, where throttling and access logs can be set.
      createDefaultStage: false,
    });
    const accessLogs = (this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: stage.logRetention,
      removalPolicy: stage.removalPolicy,
    }));
    const defaultStage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: stage.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // No headers, query strings or bodies: they may carry credentials and client data.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            requestTime: '$context.requestTime',
            ip: '$context.identity.sourceIp',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });
    this.url = defaultStage.url;
    acknowledge(
      this,
      'APIG4',
      'Routes authenticate in their function, once per request: an API key (SHA-256 hash looked up in DynamoDB) or an OIDC JWT verified against the issuer JWKS (shared/http/handler.ts, docs/architecture.md); public routes (health, OpenAPI, signing key) are public by the specification.',
    );

    const logGroup = new LogGroup(this, 'RouteLogs', {
      retention: stage.logRetention,
      removalPolicy: stage.removalPolicy,
    });
    // API Gateway invokes the route functions through one role instead of a resource-based permission per
    // route: the same least privilege (InvokeFunction on exactly these functions) for two resources instead
    // of one per (method, path) (docs/architecture.md, "CloudFormation resource budget").
    const invokeRole = new Role(this, 'InvokeRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: `Lets the ${stage.name} HTTP API invoke its route functions`,
    });
    const integrations = new Map<RouteDef, HttpIntegration>();
    for (const [area, routes] of Object.entries(props.routeAreas)) {
      const nested = new RouteArea(this, pascal(area), {
        stage,
        routes,
        httpApi: this.httpApi,
        invokeRole,
        logGroup,
        resources,
      });
      for (const [operationId, fn] of nested.functions) {
        if (this.functions.has(operationId))
          throw new Error(`Two routes share the operationId ${operationId}`);
        this.functions.set(operationId, fn);
      }
      for (const [route, integration] of nested.integrations) integrations.set(route, integration);
    }
    for (const { method, path, route } of httpRoutes([...integrations.keys()])) {
      // The route keys stay here, at the construct path HttpApi.addRoutes gives them (Api/HttpApi/<METHOD><path>):
      // API Gateway allows a route key once per API, so a route moved into a nested stack would collide with
      // its old self during the update. Keeping their logical ids, an update only retargets them.
      const routeKey = HttpRouteKey.with(path, HttpMethod[method]);
      const cfnRoute = new CfnRoute(new Construct(this.httpApi, `${method}${path}`), 'Resource', {
        apiId: this.httpApi.apiId,
        routeKey: routeKey.key,
        target: `integrations/${integrations.get(route)!.integrationId}`,
        authorizationType: 'NONE',
      });
      // A route switches to its new integration only once the invoke role may call the new function.
      cfnRoute.node.addDependency(invokeRole);
    }

    this.addUnmatchedRoute(stage, invokeRole, logGroup, [...integrations.keys()]);

    // At stack level, so the output keeps the plain name ApiUrl for scripts that read it.
    new CfnOutput(Stack.of(this), 'ApiUrl', { description: 'Base URL of the HTTP API', value: this.url });
  }

  /**
   * API Gateway's `$default` route: every request no route key matches goes to one small function that knows
   * the route table (functions/platform/unmatched-route.ts) and answers 405 with `Allow` for a known path, 404
   * for any other, in the error envelope. One function, integration and route whatever the number of paths
   * (the CloudFormation resource budget); it is granted nothing.
   */
  private addUnmatchedRoute(
    stage: StageSettings,
    invokeRole: Role,
    logGroup: LogGroup,
    routes: readonly RouteDef[],
  ): void {
    const fn = new ServiceFunction(this, 'UnmatchedRoute', {
      module: UNMATCHED_ROUTE.handler,
      stage,
      description: UNMATCHED_ROUTE.description,
      permissions: {},
      logGroup,
    });
    invokeRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
    );
    const integration = new HttpIntegration(this, 'UnmatchedRouteIntegration', {
      httpApi: this.httpApi,
      integrationType: HttpIntegrationType.AWS_PROXY,
      integrationUri: fn.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      credentials: IntegrationCredentials.fromRole(invokeRole),
    });
    const route = new CfnRoute(new Construct(this.httpApi, 'DefaultRoute'), 'Resource', {
      apiId: this.httpApi.apiId,
      routeKey: '$default',
      target: `integrations/${integration.integrationId}`,
      authorizationType: 'NONE',
    });
    route.node.addDependency(invokeRole);
    // API Gateway picks among the route keys of the request's method, so a method a path lacks would reach a
    // parameter path's route of that method (POST /v1/incidents/stats → POST /v1/incidents/{id}): those keys go
    // to this function too, which answers 405 as the local gateway does.
    for (const { method, path } of shadowedRouteKeys(httpRoutes(routes))) {
      const shadowed = new CfnRoute(new Construct(this.httpApi, `Unmatched${method}${path}`), 'Resource', {
        apiId: this.httpApi.apiId,
        routeKey: `${method} ${path}`,
        target: `integrations/${integration.integrationId}`,
        authorizationType: 'NONE',
      });
      shadowed.node.addDependency(invokeRole);
    }
    this.functions.set(UNMATCHED_ROUTE.name, fn);
  }
}
