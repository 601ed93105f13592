import { Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledged findings of cdk-nag's AwsSolutions pack (test/infra/nag.test.ts runs it with zero
 * unacknowledged errors). Each acknowledgement sits next to the construct or grant it is about, carries
 * the reason a security reviewer asked for, and is listed in docs/deploy.md ("Security review").
 * Acknowledging needs only aws-cdk-lib, so the stack does not depend on cdk-nag at run time.
 */
export function acknowledge(scope: IConstruct, rule: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::AwsSolutions-${rule}`, reason });
}

/** The IAM5 finding for `<resource ARN><suffix>` (e.g. `/*` objects, `/index/*` indexes) of a construct. */
export function wildcardUnder(resource: IConstruct, suffix: string): string {
  const logicalId = Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnElement);
  return `IAM5[Resource::<${logicalId}.Arn>${suffix}]`;
}
