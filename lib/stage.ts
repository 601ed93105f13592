import { RemovalPolicy } from 'aws-cdk-lib';
import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';

/** What differs between a production stage and every other one, decided here and nowhere else. */
export interface StageSettings {
  name: string;
  production: boolean;
  /** Stateful resources that may be thrown away with the stack outside production. */
  removalPolicy: RemovalPolicy;
  logRetention: RetentionDays;
  throttle: ThrottleSettings;
  /** Alarm thresholds (lib/monitoring.ts). */
  alarms: { serverErrorRatePercent: number; p99LatencyMs: number };
}

const STAGE_NAME = /^[a-z0-9]{1,12}$/;

/** Stage names become part of physical names (`gls-<stage>-main`, the KMS alias), so they are kept short and plain. */
export function parseStage(raw: unknown): string {
  if (typeof raw !== 'string' || !STAGE_NAME.test(raw))
    throw new Error(`stage must be 1 to 12 lowercase letters or digits, got ${JSON.stringify(raw)}`);
  return raw;
}

export function stageSettings(name: string): StageSettings {
  const production = parseStage(name) === 'prod';
  return {
    name,
    production,
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    logRetention: production ? RetentionDays.ONE_YEAR : RetentionDays.TWO_WEEKS,
    // Account-wide Lambda concurrency is the real ceiling; these keep one noisy client from reaching it.
    throttle: production ? { rateLimit: 200, burstLimit: 400 } : { rateLimit: 20, burstLimit: 40 },
    // Production pages on 1 % 5xx over two 5-minute periods; other stages only on clear breakage.
    alarms: production
      ? { serverErrorRatePercent: 1, p99LatencyMs: 3000 }
      : { serverErrorRatePercent: 10, p99LatencyMs: 10000 },
  };
}
