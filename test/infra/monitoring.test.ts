import { Match, type Template } from 'aws-cdk-lib/assertions';
import { httpRoutes, ROUTES } from '../../shared/routes.js';
import {
  DEPENDENCY_UNAVAILABLE_LOG,
  TAMPERING_DETECTED_LOG,
  VERIFICATION_FAILED_LOG,
  VERIFICATION_STUCK_LOG,
  WITNESS_REFUSED_LOG,
} from '../../shared/runtime/logger.js';
import {
  AREA_5XX_ALARM_THRESHOLD,
  DEPENDENCY_ALARM_THRESHOLD,
  WATCHED_DEPENDENCIES,
} from '../../lib/monitoring.js';
import { WORKERS } from '../../shared/workers/table.js';
import { synth } from './synth.js';
import { functionIdByDescription, referencedId, resources } from './template-graph.js';

const alarmsOf = (template: Template) => Object.values(resources(template, 'AWS::CloudWatch::Alarm'));

describe('monitoring', () => {
  let template: Template;
  let topicId: string;
  beforeAll(() => {
    template = synth({ stage: 'prod', alarmEmail: 'ops@example.com' });
    topicId = Object.keys(resources(template, 'AWS::SNS::Topic'))[0]!;
  });

  it('notifies one TLS-only topic, with the configured e-mail subscribed, on ALARM and OK', () => {
    expect(Object.keys(resources(template, 'AWS::SNS::Topic'))).toHaveLength(1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: topicId },
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    for (const alarm of alarmsOf(template)) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
    }
  });

  it('subscribes nobody when no e-mail is configured', () => {
    expect(Object.keys(resources(synth(), 'AWS::SNS::Subscription'))).toHaveLength(0);
  });

  it('alarms on the 5xx rate and the p99 latency of the HTTP API, stricter in prod', () => {
    const rate = alarmsOf(template).find((a) => a.Properties.AlarmName === 'gls-prod-api-5xx-rate')!;
    expect(rate.Properties.Threshold).toBe(1);
    const expression = rate.Properties.Metrics.find((m: any) => m.Expression);
    expect(expression.Expression).toMatch(/100 \* errors \/ requests/);
    const metricNames = rate.Properties.Metrics.filter((m: any) => m.MetricStat).map(
      (m: any) => m.MetricStat.Metric.MetricName,
    );
    expect(metricNames.sort()).toEqual(['5xx', 'Count']);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'gls-prod-api-p99-latency',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 3000,
    });
    const dev = alarmsOf(synth()).find((a) => a.Properties.AlarmName === 'gls-dev-api-5xx-rate')!;
    expect(dev.Properties.Threshold).toBeGreaterThan(1);
  });

  it('alarms on throttles of every function of the route table and the worker list', () => {
    const throttleAlarms = alarmsOf(template).filter((a) =>
      (a.Properties.Metrics ?? []).some(
        (m: { MetricStat?: { Metric: { MetricName: string } } }) =>
          m.MetricStat?.Metric.MetricName === 'Throttles',
      ),
    );
    const watched = new Set<string>();
    for (const alarm of throttleAlarms) {
      const metrics = alarm.Properties.Metrics as {
        Expression?: string;
        MetricStat?: { Metric: { Dimensions: { Value: unknown }[] } };
      }[];
      // At most CloudWatch's 10 metrics per alarm, summed by the alarm's one expression.
      expect(metrics.filter((m) => m.MetricStat)).not.toHaveLength(0);
      expect(metrics.filter((m) => m.MetricStat).length).toBeLessThanOrEqual(10);
      expect(metrics.filter((m) => m.Expression)).toHaveLength(1);
      for (const m of metrics)
        if (m.MetricStat) watched.add(referencedId(m.MetricStat.Metric.Dimensions[0]!.Value));
    }
    const functions = [
      ...ROUTES.map((r) => functionIdByDescription(template, `${r.method} ${r.path}: ${r.summary}`)),
      ...WORKERS.map((w) => functionIdByDescription(template, w.description)),
    ];
    expect(functions).toHaveLength(ROUTES.length + WORKERS.length);
    for (const fn of functions) expect(watched).toContain(fn);
  });

  it("alarms on the depth of every dead-letter queue and every stream worker's on-failure queue", () => {
    const queues = resources(template, 'AWS::SQS::Queue');
    const deadLetterIds = Object.values(queues)
      .map((q) => q.Properties.RedrivePolicy?.deadLetterTargetArn)
      .filter(Boolean)
      .map((arn) => referencedId(arn));
    expect(deadLetterIds.length).toBe(WORKERS.filter((w) => w.trigger.kind === 'queue').length);
    const onFailureIds = Object.values(resources(template, 'AWS::Lambda::EventSourceMapping'))
      .map((m) => m.Properties.DestinationConfig?.OnFailure?.Destination)
      .filter(Boolean)
      .map((arn) => referencedId(arn));
    expect(onFailureIds.length).toBe(WORKERS.filter((w) => w.trigger.kind === 'stream').length);
    deadLetterIds.push(...onFailureIds);
    const watched = alarmsOf(template)
      .filter((a) => a.Properties.MetricName === 'ApproximateNumberOfMessagesVisible')
      .map((a) => referencedId(a.Properties.Dimensions[0].Value));
    expect(watched.sort()).toEqual(deadLetterIds.sort());
  });

  it("counts failed verifications from every function's log group and alarms on the first", () => {
    const filters = Object.values(resources(template, 'AWS::Logs::MetricFilter')).filter(
      (filter) => filter.Properties.MetricTransformations[0].MetricName === 'FailedVerifications',
    );
    // Every function logs to one of the two log groups; each group has the filter.
    const logGroupsOfFunctions = new Set(
      Object.entries(resources(template, 'AWS::Lambda::Function'))
        // Not CDK's deploy-time handler of the console's BucketDeployment: it runs no service code.
        .filter(([id]) => !id.startsWith('CustomCDKBucketDeployment'))
        .map(([, fn]) => referencedId(fn.Properties.LoggingConfig.LogGroup)),
    );
    expect(new Set(filters.map((filter) => referencedId(filter.Properties.LogGroupName)))).toEqual(
      logGroupsOfFunctions,
    );
    for (const filter of filters) {
      expect(filter.Properties.FilterPattern).toBe(`{ $.message = "${VERIFICATION_FAILED_LOG}" }`);
      expect(filter.Properties.MetricTransformations).toEqual([
        expect.objectContaining({
          MetricNamespace: 'GovernanceLedger/prod',
          MetricName: 'FailedVerifications',
        }),
      ]);
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'gls-prod-failed-verifications',
      Namespace: 'GovernanceLedger/prod',
      MetricName: 'FailedVerifications',
      Threshold: 1,
    });
  });

  it('counts dependency calls given up (503) per dependency over every function, and alarms on each', () => {
    const filters = Object.values(resources(template, 'AWS::Logs::MetricFilter')).filter(
      (filter) => filter.Properties.MetricTransformations[0].MetricName === 'DependencyUnavailable',
    );
    expect(filters).toHaveLength(2); // the routes' log group and the workers'
    for (const filter of filters) {
      expect(filter.Properties.FilterPattern).toBe(`{ $.message = "${DEPENDENCY_UNAVAILABLE_LOG}" }`);
      expect(filter.Properties.MetricTransformations[0].Dimensions).toEqual([
        { Key: 'Dependency', Value: '$.dependency' },
      ]);
    }
    for (const dependency of WATCHED_DEPENDENCIES) {
      const alarm = alarmsOf(template).find(
        (a) => a.Properties.AlarmName === `gls-prod-dependency-${dependency}-unavailable`,
      )!;
      expect(alarm.Properties.Threshold).toBe(DEPENDENCY_ALARM_THRESHOLD);
      expect(alarm.Properties.Metrics[0].MetricStat.Metric).toEqual({
        Namespace: 'GovernanceLedger/prod',
        MetricName: 'DependencyUnavailable',
        Dimensions: [{ Name: 'Dependency', Value: dependency }],
      });
    }
  });

  it('counts 5xx (503 included) per route key from the access logs and alarms per route area, every route covered', () => {
    const filter = Object.values(resources(template, 'AWS::Logs::MetricFilter')).find(
      (f) => f.Properties.MetricTransformations[0].MetricName === 'ServerErrors',
    )!;
    expect(filter.Properties.FilterPattern).toBe('{ $.status >= 500 }');
    expect(filter.Properties.MetricTransformations[0].Dimensions).toEqual([
      { Key: 'RouteKey', Value: '$.routeKey' },
    ]);
    const areaAlarms = alarmsOf(template).filter((a) =>
      /^gls-prod-.+-5xx(-\d+)?$/.test(a.Properties.AlarmName),
    );
    const covered = areaAlarms.flatMap((a) =>
      a.Properties.Metrics.filter((m: any) => m.MetricStat).map(
        (m: any) => m.MetricStat.Metric.Dimensions[0].Value,
      ),
    );
    expect(covered.sort()).toEqual(
      httpRoutes()
        .map(({ method, path }) => `${method} ${path}`)
        .sort(),
    );
    for (const alarm of areaAlarms) {
      expect(alarm.Properties.Threshold).toBe(AREA_5XX_ALARM_THRESHOLD);
      expect(alarm.Properties.Metrics.filter((m: any) => m.MetricStat).length).toBeLessThanOrEqual(10);
    }
    expect(areaAlarms.map((a) => a.Properties.AlarmName)).toContain('gls-prod-ledger-5xx');
  });

  it("counts LEDGER_TAMPERING_DETECTED from every function's log group and alarms on the first (issue 32)", () => {
    const all = Object.values(resources(template, 'AWS::Logs::MetricFilter'));
    const tampering = all.filter(
      (filter) => filter.Properties.FilterPattern === `{ $.message = "${TAMPERING_DETECTED_LOG}" }`,
    );
    // Every function's log group (those the failed-verification filters watch; the access logs are not one).
    const logGroups = new Set(
      all
        .filter((filter) => filter.Properties.MetricTransformations[0].MetricName === 'FailedVerifications')
        .map((filter) => referencedId(filter.Properties.LogGroupName)),
    );
    expect(new Set(tampering.map((filter) => referencedId(filter.Properties.LogGroupName)))).toEqual(
      logGroups,
    );
    for (const filter of tampering)
      expect(filter.Properties.MetricTransformations).toEqual([
        expect.objectContaining({
          MetricNamespace: 'GovernanceLedger/prod',
          MetricName: 'LEDGER_TAMPERING_DETECTED',
          MetricValue: '1',
        }),
      ]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'gls-prod-ledger-tampering-detected',
      Namespace: 'GovernanceLedger/prod',
      MetricName: 'LEDGER_TAMPERING_DETECTED',
      Statistic: 'Sum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [{ Ref: topicId }],
    });
  });

  it("counts witness refusals from the log-witness worker's log group and alarms on the first", () => {
    const filters = Object.values(resources(template, 'AWS::Logs::MetricFilter')).filter(
      (filter) => filter.Properties.MetricTransformations[0].MetricName === 'WitnessRefusals',
    );
    expect(filters).toHaveLength(1);
    const filter = filters[0]!;
    expect(filter.Properties.FilterPattern).toBe(`{ $.message = "${WITNESS_REFUSED_LOG}" }`);
    expect(filter.Properties.MetricTransformations).toEqual([
      expect.objectContaining({ MetricNamespace: 'GovernanceLedger/prod', MetricValue: '1' }),
    ]);
    const witnessWorker = functionIdByDescription(
      template,
      WORKERS.find((w) => w.name === 'log-witness')!.description,
    );
    const functions = resources(template, 'AWS::Lambda::Function');
    expect(referencedId(filter.Properties.LogGroupName)).toBe(
      referencedId(functions[witnessWorker]!.Properties.LoggingConfig.LogGroup),
    );
    const alarm = alarmsOf(template).find((a) => a.Properties.AlarmName === 'gls-prod-witness-refusals')!;
    expect(alarm.Properties).toEqual(
      expect.objectContaining({
        Namespace: 'GovernanceLedger/prod',
        MetricName: 'WitnessRefusals',
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
      }),
    );
  });

  it("counts stuck verifications from the verification sweep's log group and alarms on the first", () => {
    const filters = Object.values(resources(template, 'AWS::Logs::MetricFilter')).filter(
      (filter) => filter.Properties.MetricTransformations[0].MetricName === 'StuckVerifications',
    );
    expect(filters).toHaveLength(1);
    const filter = filters[0]!;
    expect(filter.Properties.FilterPattern).toBe(`{ $.message = "${VERIFICATION_STUCK_LOG}" }`);
    const sweep = functionIdByDescription(
      template,
      WORKERS.find((w) => w.name === 'integrity-verify-sweep')!.description,
    );
    const functions = resources(template, 'AWS::Lambda::Function');
    expect(referencedId(filter.Properties.LogGroupName)).toBe(
      referencedId(functions[sweep]!.Properties.LoggingConfig.LogGroup),
    );
    const alarm = alarmsOf(template).find((a) => a.Properties.AlarmName === 'gls-prod-stuck-verifications')!;
    expect(alarm.Properties).toEqual(
      expect.objectContaining({
        Namespace: 'GovernanceLedger/prod',
        MetricName: 'StuckVerifications',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [{ Ref: topicId }],
      }),
    );
  });

  it('has a dashboard', () => {
    expect(Object.keys(resources(template, 'AWS::CloudWatch::Dashboard'))).toHaveLength(1);
  });
});
