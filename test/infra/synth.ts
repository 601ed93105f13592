import { readFileSync } from 'node:fs';
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { GovernanceLedgerStack, type GovernanceLedgerStackProps } from '../../lib/stack.js';

export const TEST_ENV = { account: '123456789012', region: 'eu-west-2' };

const cdkJson = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as {
  context: Record<string, unknown>;
};

interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
  Outputs?: Record<string, { Value: unknown }>;
  Parameters?: Record<string, unknown>;
  [section: string]: unknown;
}

/** One synthesized template: the root stack's, or a nested stack's with its resource id in the parent. */
export interface StackTemplate {
  /** Construct path of the stack. */
  path: string;
  /** The nested stack's AWS::CloudFormation::Stack resource in the root template; undefined for the root. */
  resourceId?: string;
  template: Template;
}

/**
 * Synthesizes the stack the way `cdk synth` does (the feature flags of cdk.json), minus the slow parts:
 * no esbuild bundling (functions point at their unbundled source) and no CloudFormation rule validation,
 * which `npm run synth` performs with findings as errors. Returns every template: the root's first, then each
 * nested stack's (one per route area).
 */
export function synthTemplates(props: Partial<GovernanceLedgerStackProps> = {}): StackTemplate[] {
  const app = new App({
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: false,
  });
  const stage = props.stage ?? 'dev';
  const root = new GovernanceLedgerStack(app, `GovernanceLedger-${stage}`, {
    env: TEST_ENV,
    ...props,
    stage,
  });
  const nested = root.node.findAll().filter(NestedStack.isNestedStack);
  return [
    { path: root.node.path, template: Template.fromStack(root) },
    ...nested.map((stack) => {
      if (stack.nestedStackParent !== root) throw new Error(`${stack.node.path}: only one level of nesting`);
      return {
        path: stack.node.path,
        resourceId: Stack.of(root).getLogicalId(stack.nestedStackResource!),
        template: Template.fromStack(stack),
      };
    }),
  ];
}

/**
 * The whole stage as one template: every nested stack's resources merged into the root's, with each
 * nested-stack parameter replaced by the value the parent passes and each `Outputs.*` attribute of a nested
 * stack replaced by the output's value. References then point straight at the resources they name, so
 * template-graph.ts follows them across stack boundaries (route → integration → function → role → policies).
 */
export function synth(props: Partial<GovernanceLedgerStackProps> = {}): Template {
  return mergeTemplates(synthTemplates(props));
}

export function mergeTemplates(templates: StackTemplate[]): Template {
  const [root, ...nested] = templates;
  const merged = structuredClone(root!.template.toJSON()) as CfnTemplate;
  const outputs = new Map<string, Map<string, unknown>>();
  for (const { path, resourceId, template } of nested) {
    const json = template.toJSON() as CfnTemplate;
    const passed = (merged.Resources[resourceId!]!.Properties?.Parameters ?? {}) as Record<string, unknown>;
    const substituted = replace(json, (value) => {
      const ref = (value as { Ref?: unknown }).Ref;
      return typeof ref === 'string' && ref in passed ? passed[ref] : undefined;
    }) as CfnTemplate;
    for (const [id, resource] of Object.entries(substituted.Resources)) {
      if (id in merged.Resources) throw new Error(`${path}: logical id ${id} is also used by another stack`);
      merged.Resources[id] = resource;
    }
    outputs.set(
      resourceId!,
      new Map(Object.entries(substituted.Outputs ?? {}).map(([name, output]) => [name, output.Value])),
    );
  }
  const resolved = replace(merged, (value) => {
    const getAtt = (value as { 'Fn::GetAtt'?: unknown })['Fn::GetAtt'];
    if (!Array.isArray(getAtt)) return undefined;
    const [id, attribute] = getAtt as [string, string];
    if (!outputs.has(id) || !attribute.startsWith('Outputs.')) return undefined;
    const output = outputs.get(id)!.get(attribute.slice('Outputs.'.length));
    if (output === undefined) throw new Error(`Nested stack ${id} has no output ${attribute}`);
    return output;
  });
  return Template.fromJSON(resolved as Record<string, unknown>);
}

/** Deep copy of a JSON value in which every object `substitute` answers for is replaced by that answer. */
function replace(value: unknown, substitute: (value: object) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => replace(item, substitute));
  if (value === null || typeof value !== 'object') return value;
  const replacement = substitute(value);
  if (replacement !== undefined) return structuredClone(replacement);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replace(item, substitute)]));
}
