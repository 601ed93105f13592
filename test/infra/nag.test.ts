import { readFileSync } from 'node:fs';
import { App, NestedStack, Validations } from 'aws-cdk-lib';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GovernanceLedgerStack } from '../../lib/stack.js';
import { TEST_ENV } from './synth.js';

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

interface ValidationReport {
  pluginReports: { violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[] }[];
}

/** One finding: the rule and the construct it names. */
type Finding = `${string} ${string}`;

/**
 * Synthesises a stage with cdk-nag's AwsSolutions pack as a CDK validation plugin; returns its unacknowledged
 * findings as "<rule> <construct path>", read from the validation report CDK writes when synthesis fails.
 */
function nag(
  stage: string,
  props: { alarmEmail?: string } = {},
  mutate: (stack: GovernanceLedgerStack) => void = () => {},
  context: Record<string, string> = {},
): Finding[] {
  const outdir = `.tmp/nag-${stage}`;
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context },
    outdir,
  });
  mutate(new GovernanceLedgerStack(app, `GovernanceLedger-${stage}`, { env: TEST_ENV, stage, ...props }));
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
    return [];
  } catch (error) {
    const message = (error as Error).message;
    if (!/validation-report\.json/.test(message)) throw error;
    const report = JSON.parse(readFileSync(`${outdir}/validation-report.json`, 'utf8')) as ValidationReport;
    return report.pluginReports.flatMap((plugin) =>
      plugin.violations.flatMap((violation) =>
        violation.violatingConstructs.map(
          ({ constructPath }): Finding => `${violation.ruleName} ${constructPath}`,
        ),
      ),
    );
  }
}

// A full synthesis with the rule pack takes tens of seconds, so each stage is synthesised once: dev with two
// careless buckets added (one in the root stack, one in a nested stack) proves at once that the check reaches
// both kinds of stack and that the stack itself has no unacknowledged finding.
describe('cdk-nag AwsSolutions', () => {
  it("finds no unacknowledged error in prod, its replica region's stacks included", () => {
    // Each finding names its rule and resource, so a failure says what to fix or acknowledge.
    expect(nag('prod', { alarmEmail: 'ops@example.com' }, undefined, { replicaRegion: 'eu-west-1' })).toEqual(
      [],
    );
  });

  it('finds no unacknowledged error in dev, and reports what is not acknowledged in root and nested stacks', () => {
    const findings = nag('dev', {}, (stack) => {
      new Bucket(stack, 'Careless');
      new Bucket(stack.node.findAll().find(NestedStack.isNestedStack)!, 'NestedCareless');
    });
    expect(findings).toEqual(
      expect.arrayContaining(['AwsSolutions-S10 GovernanceLedger-dev/Careless/Resource']),
    );
    expect(findings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^AwsSolutions-S10 GovernanceLedger-dev\/Api\/\w+\/NestedCareless\//),
      ]),
    );
    // Nothing but the careless buckets: the stack's own resources pass.
    expect(findings.filter((finding) => !/\/(Nested)?Careless\//.test(finding))).toEqual([]);
  });
});
