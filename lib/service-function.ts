import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV } from '../shared/runtime/config.js';
import type { Permissions } from '../shared/routes/route.js';
import { BUNDLE_OPTIONS, bundleDefines } from './bundling.js';
import { acknowledge } from './nag.js';
import type { StageSettings } from './stage.js';

/** The repository root: handler modules in the route table and worker list are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceFunctionProps {
  /** Handler module relative to the repository root, without extension; it exports `handler`. */
  module: string;
  stage: StageSettings;
  description: string;
  /** What the function is granted; decides which SDK clients its bundle contains. */
  permissions: Permissions;
  /** @default 15 seconds: well inside API Gateway's 30-second integration limit. */
  timeout?: Duration;
  /** Concurrency reserved for (and capping) the function. @default none */
  reservedConcurrentExecutions?: number;
  /** @default 1024 MB: CPU scales with memory, and cold starts (SDK init, hashing, zod) are CPU-bound. */
  memorySize?: number;
  /** The log group it writes to, with the stage's retention (one per construct: routes, workers). */
  logGroup: ILogGroup;
}

/**
 * A Lambda function of this service with its safe defaults set once: Node 22 on ARM64, X-Ray tracing, a
 * log group with the stage's retention, and an ESM bundle with source maps (options in lib/bundling.ts,
 * measured against their budgets by scripts/bundle-budget.ts). Everything a function may
 * touch is granted afterwards, through the owning construct's grant methods (see lib/permissions.ts).
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id, {
      entry: join(REPO_ROOT, `${props.module}.ts`),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      // 20 s: a request's dependency budgets (shared/runtime/config.ts, issue 32) end it within ~18 s in the worst
      // case (an append's 8 s wait, its doubt and one call in flight), so it answers 503 itself rather than being
      // cut off; API Gateway's 30 s stays further out.
      timeout: props.timeout ?? Duration.seconds(20),
      memorySize: props.memorySize ?? 1024,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      // Shared by the functions of one construct (routes, workers): each JSON line names its function
      // (Powertools' function_name), and a log group per function would cost a CloudFormation resource each
      // (docs/architecture.md, "CloudFormation resource budget").
      logGroup: props.logGroup,
      environment: {
        // Stack traces point into the TypeScript sources, not the minified bundle.
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.runtime]: 'aws',
        [ENV.stage]: props.stage.name,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_OPTIONS.target,
        mainFields: [...BUNDLE_OPTIONS.mainFields],
        banner: BUNDLE_OPTIONS.banner,
        minify: BUNDLE_OPTIONS.minify,
        keepNames: BUNDLE_OPTIONS.keepNames,
        sourceMap: BUNDLE_OPTIONS.sourceMap,
        sourcesContent: BUNDLE_OPTIONS.sourcesContent,
        externalModules: [...BUNDLE_OPTIONS.externalModules],
        // Leaves out the SDK clients the function's permissions give it no use for (shared/runtime/aws-deps.ts).
        define: bundleDefines(props.permissions),
      },
    });
    acknowledge(
      this,
      'IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      'AWSLambdaBasicExecutionRole grants only logs:CreateLogGroup, CreateLogStream and PutLogEvents; the log group is created by this stack with its retention, and AWS maintains the policy.',
    );
    acknowledge(
      this,
      'IAM5[Resource::*]',
      'Only X-Ray (active tracing): xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    );
    acknowledge(
      this,
      'L1',
      'Node.js 22 is the runtime the code is built for and tested on (package.json engines, esbuild target node22); the runtime moves with the project, not with each Lambda release.',
    );
  }
}
