import { readFileSync } from 'node:fs';
import { App, NestedStack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GovernanceLedgerStack } from '../../lib/stack.js';
import { TEST_ENV } from './synth.js';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/** Synthesises a stage with cdk-nag's AwsSolutions pack as a CDK validation plugin; returns its report text. */
function nag(
  stage: string,
  props: { alarmEmail?: string } = {},
  mutate: (stack: GovernanceLedgerStack) => void = () => {},
): string | null {
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
    outdir: `.tmp/nag-${stage}`,
  });
  mutate(new GovernanceLedgerStack(app, `GovernanceLedger-${stage}`, { env: TEST_ENV, stage, ...props }));
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('cdk-nag AwsSolutions', () => {
  it.each([
    ['prod', { alarmEmail: 'ops@example.com' }],
    ['dev', {}],
  ])('finds no unacknowledged error in %s', (stage, props) => {
    const report = nag(stage, props);
    // The report names each finding's rule and resource, so a failure says what to fix or acknowledge.
    expect(report).toBeNull();
  });

  it('reports what is not acknowledged, in the root stack and in nested ones (the check can fail)', () => {
    const report = nag('dev', {}, (stack) => {
      new Bucket(stack, 'Careless');
      new Bucket(stack.node.findAll().find(NestedStack.isNestedStack)!, 'NestedCareless');
    });
    expect(report).toMatch(/AwsSolutions-S10/);
    expect(report).toMatch(/GovernanceLedger-dev\/Careless/);
    expect(report).toMatch(/GovernanceLedger-dev\/Api\/\w+\/NestedCareless/);
  });
});
