import type { Template } from 'aws-cdk-lib/assertions';

/**
 * Queries that follow references through a synthesized template (route → integration → function → role →
 * policies), so tests find resources by what they are wired to, never by generated logical ids.
 */
export interface CfnResource {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

export function resources(template: Template, type: string, props?: object): Record<string, CfnResource> {
  return template.findResources(type, props ? { Properties: props } : undefined) as Record<
    string,
    CfnResource
  >;
}

export function onlyResource(template: Template, type: string, props?: object): [string, CfnResource] {
  const found = Object.entries(resources(template, type, props));
  if (found.length !== 1)
    throw new Error(`Expected one ${type} matching ${JSON.stringify(props)}, found ${found.length}`);
  return found[0]!;
}

/** The logical id behind `{ Ref }` or `{ Fn::GetAtt: [id, attr] }`. */
export function referencedId(value: unknown): string {
  const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  const id = v.Ref ?? v['Fn::GetAtt']?.[0];
  if (!id) throw new Error(`Not a reference: ${JSON.stringify(value)}`);
  return id;
}

/** True when a (possibly composite) CloudFormation value mentions the logical id. */
export function mentions(value: unknown, logicalId: string): boolean {
  return JSON.stringify(value).includes(`"${logicalId}"`);
}

/** The function a route key (`GET /v1/ledger/records`) invokes. */
export function routeFunctionId(template: Template, routeKey: string): string {
  const [, route] = onlyResource(template, 'AWS::ApiGatewayV2::Route', { RouteKey: routeKey });
  // Target: { Fn::Join: ['', ['integrations/', { Ref: integrationId }]] }
  const parts = (route.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const integrationId = referencedId(parts.find((part) => typeof part === 'object'));
  const integration = resources(template, 'AWS::ApiGatewayV2::Integration')[integrationId];
  if (!integration) throw new Error(`Route ${routeKey} targets no integration`);
  return referencedId(integration.Properties.IntegrationUri);
}

/** The function with this description (workers are described by their definition). */
export function functionIdByDescription(template: Template, description: string): string {
  return onlyResource(template, 'AWS::Lambda::Function', { Description: description })[0];
}

export function lambdaFunction(template: Template, functionId: string): CfnResource {
  const fn = resources(template, 'AWS::Lambda::Function')[functionId];
  if (!fn) throw new Error(`No function ${functionId}`);
  return fn;
}

/** Every statement of every policy attached to the function's execution role. */
export function functionStatements(template: Template, functionId: string): Statement[] {
  const roleId = referencedId(lambdaFunction(template, functionId).Properties.Role);
  return Object.values(resources(template, 'AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => referencedId(role) === roleId))
    .flatMap((policy) => statementsOf(policy.Properties.PolicyDocument));
}

/** Statements of every identity and resource policy in the template. */
export function allStatements(template: Template): Statement[] {
  const documents = [
    ...Object.values(resources(template, 'AWS::IAM::Policy')).map((p) => p.Properties.PolicyDocument),
    ...Object.values(resources(template, 'AWS::IAM::ManagedPolicy')).map((p) => p.Properties.PolicyDocument),
    ...Object.values(resources(template, 'AWS::IAM::Role')).flatMap((role) =>
      ((role.Properties.Policies as { PolicyDocument: unknown }[] | undefined) ?? []).map(
        (p) => p.PolicyDocument,
      ),
    ),
    ...Object.values(resources(template, 'AWS::S3::BucketPolicy')).map((p) => p.Properties.PolicyDocument),
  ];
  return documents.flatMap(statementsOf);
}

function statementsOf(document: unknown): Statement[] {
  const raw = (document as { Statement: (Omit<Statement, 'Action'> & { Action: string | string[] })[] })
    .Statement;
  return raw.map((s) => ({ ...s, Action: typeof s.Action === 'string' ? [s.Action] : s.Action }));
}

/** Actions allowed on a resource (statements whose Resource mentions it, or `*`). */
export function allowedOn(statements: Statement[], logicalId: string): Set<string> {
  return new Set(
    statements
      .filter((s) => s.Effect === 'Allow' && (s.Resource === '*' || mentions(s.Resource, logicalId)))
      .flatMap((s) => s.Action),
  );
}

export function allowedActions(statements: Statement[]): Set<string> {
  return new Set(statements.filter((s) => s.Effect === 'Allow').flatMap((s) => s.Action));
}

/** Does an IAM action pattern (`s3:Delete*`, `s3:*`, `*`) cover the action? */
export function covers(pattern: string, action: string): boolean {
  const regex = new RegExp(`^${pattern.split('*').map(escape).join('.*')}$`, 'i');
  return regex.test(action);
}

function escape(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
