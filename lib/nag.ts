import { Names, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledged findings of cdk-nag's AwsSolutions pack (test/infra/nag.test.ts runs it with zero
 * unacknowledged errors, its replica region's stacks included). Each acknowledgement sits next to the construct
 * or grant it is about and carries the reason a security reviewer asked for: `grep -rn acknowledge lib/` lists them.
 * Acknowledging needs only aws-cdk-lib, so the stack does not depend on cdk-nag at run time.
 */
export function acknowledge(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/**
 * The IAM5 finding for `<resource ARN><suffix>` (e.g. `/*` objects, `/index/*` indexes) in the policy of
 * `grantee`. In the resource's own stack the ARN is `<LogicalId.Arn>`; in a nested stack (a route area) it is
 * the parameter CDK creates for the reference, named `reference-to-<unique id of the resource><attribute>`.
 */
export function wildcardUnder(grantee: IConstruct, resource: IConstruct, suffix: string): string {
  const element = resource.node.defaultChild as CfnElement;
  const arn =
    Stack.of(grantee) === Stack.of(resource)
      ? `${Stack.of(resource).getLogicalId(element)}.Arn`
      : `reference-to-${Names.nodeUniqueId(element.node)}Arn`.replace(/[^A-Za-z0-9]/g, '');
  return `IAM5[Resource::<${arn}>${suffix}]`;
}
