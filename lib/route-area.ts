import { NestedStack } from 'aws-cdk-lib';
import {
  HttpIntegration,
  HttpIntegrationType,
  IntegrationCredentials,
  PayloadFormatVersion,
  type HttpApi,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { routeFunctionPermissions, type RouteDef } from '../shared/routes/route.js';
import { applyRoutePermissions, type ServiceResources } from './permissions.js';
import { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface RouteAreaProps {
  stage: StageSettings;
  /** The area's routes (one module of shared/routes/, grouped by ROUTE_AREAS of shared/routes.ts). */
  routes: readonly RouteDef[];
  httpApi: HttpApi;
  /** The role API Gateway invokes every route function with (lib/api.ts). */
  invokeRole: IRole;
  /** The log group all route functions share. */
  logGroup: ILogGroup;
  resources: ServiceResources;
}

/**
 * One area of the route table as a nested stack: per route a function (with its role and policy) and the
 * Lambda proxy integration that API Gateway calls it through. The HTTP API with its routes and stage, the
 * invoke role, the log groups and everything stateful stay in the parent (docs/architecture.md §9); what a
 * function needs from there (table names, ARNs, queue URLs) arrives as nested-stack parameters.
 */
export class RouteArea extends NestedStack {
  readonly functions = new Map<string, ServiceFunction>();
  /** Each route's integration, which the parent's route keys target. */
  readonly integrations = new Map<RouteDef, HttpIntegration>();

  constructor(scope: Construct, id: string, props: RouteAreaProps) {
    const { stage, httpApi, invokeRole, logGroup, resources } = props;
    super(scope, id, { description: `Governance ledger (${stage.name}): functions of the ${id} routes` });
    for (const route of props.routes) {
      const fn = new ServiceFunction(this, route.operationId, {
        module: route.handler,
        stage,
        description: `${route.method} ${route.path}: ${route.summary}`,
        permissions: routeFunctionPermissions(route),
        logGroup,
      });
      applyRoutePermissions(fn, route, resources);
      // Unqualified ARN only: no version or alias wildcard.
      invokeRole.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }),
      );
      this.functions.set(route.operationId, fn);
      // Called with the invoke role rather than through a resource-based permission per route key.
      const integration = new HttpIntegration(this, `${route.operationId}Integration`, {
        httpApi,
        integrationType: HttpIntegrationType.AWS_PROXY,
        integrationUri: fn.functionArn,
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        credentials: IntegrationCredentials.fromRole(invokeRole),
      });
      this.integrations.set(route, integration);
    }
  }
}
