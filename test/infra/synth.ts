import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GovernanceLedgerStack, type GovernanceLedgerStackProps } from '../../lib/stack.js';

export const TEST_ENV = { account: '123456789012', region: 'eu-west-2' };

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

/**
 * Synthesizes the stack the way `cdk synth` does (the feature flags of cdk.json), minus the slow parts:
 * no esbuild bundling (functions point at their unbundled source) and no CloudFormation rule validation,
 * which `npm run synth` performs with findings as errors.
 */
export function synth(props: Partial<GovernanceLedgerStackProps> = {}): Template {
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const stage = props.stage ?? 'dev';
  return Template.fromStack(
    new GovernanceLedgerStack(app, `GovernanceLedger-${stage}`, { env: TEST_ENV, ...props, stage }),
  );
}
