import { CfnOutput, Stack } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpIntegrationType,
  HttpMethod,
  HttpRouteIntegration,
  IntegrationCredentials,
  LogGroupLogDestination,
  PayloadFormatVersion,
  type HttpRouteIntegrationBindOptions,
  type HttpRouteIntegrationConfig,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyStatement, Role, ServicePrincipal, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { httpRoutes } from '../shared/routes.js';
import type { RouteDef } from '../shared/routes/route.js';
import { applyRoutePermissions, type ServiceResources } from './permissions.js';
import { acknowledge } from './nag.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface ApiProps {
  stage: StageSettings;
  routes: readonly RouteDef[];
  resources: ServiceResources;
}

/**
 * The HTTP API: one function per route of the route table, each (method, path) of httpRoutes() wired to its
 * route's function, so a /v1/principal alias reaches the very function of its /v1/review route.
 * Authentication happens in the functions (API key or OIDC token, see shared/http/handler.ts), which is why
 * the routes carry no API Gateway authorizer.
 */
export class Api extends Construct {
  readonly httpApi: HttpApi;
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
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: stage.logRetention,
      removalPolicy: stage.removalPolicy,
    });
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
    const integrations = new Map<RouteDef, HttpRouteIntegration>();
    for (const route of props.routes) {
      if (this.functions.has(route.operationId))
        throw new Error(`Two routes share the operationId ${route.operationId}`);
      const fn = new ServiceFunction(this, route.operationId, {
        module: route.handler,
        stage,
        description: `${route.method} ${route.path}: ${route.summary}`,
        permissions: route.permissions,
        logGroup,
      });
      applyRoutePermissions(fn, route, resources);
      // Unqualified ARN only: no version or alias wildcard.
      invokeRole.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      );
      this.functions.set(route.operationId, fn);
      integrations.set(route, new RoleLambdaIntegration(`${route.operationId}Integration`, fn, invokeRole));
    }
    for (const { method, path, route } of httpRoutes(props.routes)) {
      this.httpApi.addRoutes({ path, methods: [HttpMethod[method]], integration: integrations.get(route)! });
    }

    // At stack level, so the output keeps the plain name ApiUrl for scripts that read it.
    new CfnOutput(Stack.of(this), 'ApiUrl', { description: 'Base URL of the HTTP API', value: this.url });
  }
}

/** A Lambda proxy integration (payload 2.0) that API Gateway calls with a role rather than a permission. */
class RoleLambdaIntegration extends HttpRouteIntegration {
  constructor(
    id: string,
    private readonly handler: IFunction,
    private readonly role: IRole,
  ) {
    super(id);
  }

  bind(_options: HttpRouteIntegrationBindOptions): HttpRouteIntegrationConfig {
    return {
      type: HttpIntegrationType.AWS_PROXY,
      uri: this.handler.functionArn,
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      credentials: IntegrationCredentials.fromRole(this.role),
    };
  }
}
