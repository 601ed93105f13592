import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarm,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Dependency } from '../shared/errors.js';
import type { RouteDef } from '../shared/routes/route.js';
import { httpRoutes } from '../shared/routes.js';
import {
  DEPENDENCY_UNAVAILABLE_LOG,
  TAMPERING_DETECTED_LOG,
  VERIFICATION_FAILED_LOG,
  VERIFICATION_STUCK_LOG,
  WITNESS_REFUSED_LOG,
} from '../shared/runtime/logger.js';
import type { WorkQueues } from './queues.js';
import { pascal } from './queues.js';
import type { ServiceFunction } from './service-function.js';
import type { StageSettings } from './stage.js';

export interface MonitoringProps {
  stage: StageSettings;
  httpApi: HttpApi;
  /** The stage's JSON access logs (routeKey, status), for the 5xx count per route area. */
  accessLogs: ILogGroup;
  /** The route table by area, as the API deploys it. */
  routeAreas: Readonly<Record<string, readonly RouteDef[]>>;
  /** Every function of the stack: routes and workers. */
  functions: ReadonlyMap<string, ServiceFunction>;
  queues: WorkQueues;
  /** Each stream worker's on-failure queue (lib/workers.ts): a change there was given up after every retry. */
  streamFailureQueues?: ReadonlyMap<string, Queue>;
  /** Subscribe this address to the alarm topic (it must confirm the subscription). */
  alarmEmail?: string;
}

/** CloudWatch's limit on the metrics one alarm's math expression may use. */
const MAX_ALARM_METRICS = 10;

/** The dependencies whose failures are alarmed on (issue 32): the `dependency` of DEPENDENCY_UNAVAILABLE_LOG. */
export const WATCHED_DEPENDENCIES: readonly Dependency[] = ['database', 'signer', 'objects', 'queue'];
/** Calls given up as unavailable (503) per dependency in 5 minutes before its alarm fires. */
export const DEPENDENCY_ALARM_THRESHOLD = 5;
/** 5xx answers (503 included) of one route area's routes in 5 minutes before its alarm fires. */
export const AREA_5XX_ALARM_THRESHOLD = 10;
/** The metric the tamper watch's ERROR lines are counted into (issue 32). */
export const TAMPERING_METRIC = 'LEDGER_TAMPERING_DETECTED';

/** The custom namespace of a stage's metrics derived from logs. */
export function metricNamespace(stage: string): string {
  return `GovernanceLedger/${stage}`;
}

/**
 * Alarms, their SNS topic and a dashboard, all derived from the route table, the worker list and the queues,
 * so a new route, worker or queue is watched without touching this file. Alarms notify the topic on ALARM
 * and on OK; missing data (no traffic) is not a breach.
 */
export class Monitoring extends Construct {
  readonly topic: Topic;
  readonly alarms: IAlarm[] = [];
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { stage, httpApi } = props;
    const period = Duration.minutes(5);

    // Alarm notifications carry alarm names and states, no customer data (see the cdk-nag suppression).
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `Governance ledger ${stage.name} alarms`,
      enforceSSL: true,
    });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);
    const alarm = (alarmId: string, metric: IMetric, threshold: number, description: string, periods = 1) => {
      const created = new Alarm(this, alarmId, {
        metric,
        alarmName: `gls-${stage.name}-${alarmId}`,
        alarmDescription: description,
        threshold,
        evaluationPeriods: periods,
        datapointsToAlarm: periods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };
    /**
     * A metric counting one ERROR line that one worker logs, from that worker's log group, and an alarm on its
     * first occurrence (when the stack has the worker). Returns the metric, for the dashboard.
     */
    const alarmOnWorkerLog = (
      worker: string,
      metricName: string,
      message: string,
      alarmId: string,
      description: string,
    ): Metric => {
      const metric = new Metric({
        namespace: metricNamespace(stage.name),
        metricName,
        period,
        statistic: 'Sum',
      });
      const fn = props.functions.get(worker);
      if (fn) {
        new MetricFilter(this, metricName, {
          logGroup: fn.logGroup,
          metricNamespace: metricNamespace(stage.name),
          metricName,
          filterPattern: FilterPattern.stringValue('$.message', '=', message),
          metricValue: '1',
        });
        alarm(alarmId, metric, 1, description);
      }
      return metric;
    };

    // HTTP API: share of 5xx answers, and p99 latency as the client sees it.
    const requests = httpApi.metricCount({ period, statistic: 'Sum' });
    const serverErrors = httpApi.metricServerError({ period, statistic: 'Sum' });
    const errorRate = new MathExpression({
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: { requests, errors: serverErrors },
      label: '5xx rate (%)',
      period,
    });
    const p99 = httpApi.metricLatency({ period, statistic: 'p99' });
    alarm('api-5xx-rate', errorRate, stage.alarms.serverErrorRatePercent, '5xx answers as % of requests', 2);
    alarm('api-p99-latency', p99, stage.alarms.p99LatencyMs, 'p99 latency of the HTTP API (ms)', 3);

    // Every function: throttles (reserved or account concurrency exhausted). Errors of routes surface as 5xx.
    // CloudWatch lets an alarm's math use at most 10 metrics: one alarm per 10 functions, on their sum (one
    // alarm per function would cost a CloudFormation resource each, docs/architecture.md).
    const throttles: IMetric[] = [];
    const entries = [...props.functions];
    for (let start = 0, group = 1; start < entries.length; start += MAX_ALARM_METRICS, group++) {
      const slice = entries.slice(start, start + MAX_ALARM_METRICS);
      const usingMetrics: Record<string, IMetric> = {};
      slice.forEach(([, fn], index) => {
        const metric = fn.metricThrottles({ period, statistic: 'Sum' });
        throttles.push(metric);
        usingMetrics[`t${index}`] = metric;
      });
      const names = slice.map(([name]) => name);
      alarm(
        `throttles-${group}`,
        new MathExpression({
          expression: Object.keys(usingMetrics).join(' + '),
          usingMetrics,
          label: `Throttles of ${names.join(', ')}`,
          period,
        }),
        1,
        `Invocations throttled (any of: ${names.join(', ')})`,
      );
    }

    // Every dead-letter queue: a message there failed maxReceiveCount times and waits for an operator.
    const deadLetters: IMetric[] = [];
    for (const [name, { deadLetterQueue }] of props.queues.all()) {
      const metric = deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period,
        statistic: 'Maximum',
      });
      deadLetters.push(metric);
      alarm(`${name}-dead-letters`, metric, 1, `Messages waiting in the ${name} dead-letter queue`);
    }

    // Every stream worker's on-failure queue: a change there was given up (the tamper watch did not judge it).
    for (const [name, queue] of props.streamFailureQueues ?? []) {
      const metric = queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' });
      deadLetters.push(metric);
      alarm(`${name}-stream-failures`, metric, 1, `Stream changes the ${name} worker gave up on`);
    }

    // Failed chain verifications, counted from the ERROR line the integrity service logs (any function that
    // may complete a verification: the verify route and the integrity worker today).
    const failedVerifications = new Metric({
      namespace: metricNamespace(stage.name),
      metricName: 'FailedVerifications',
      period,
      statistic: 'Sum',
    });
    const logGroups = new Map(
      [...props.functions.values()].map((fn) => [fn.logGroup.node.path, fn.logGroup]),
    );
    for (const [path, logGroup] of logGroups) {
      new MetricFilter(this, `${pascal(path.split('/').slice(1).join('-'))}FailedVerifications`, {
        logGroup,
        metricNamespace: metricNamespace(stage.name),
        metricName: 'FailedVerifications',
        filterPattern: FilterPattern.stringValue('$.message', '=', VERIFICATION_FAILED_LOG),
        metricValue: '1',
      });
    }
    alarm('failed-verifications', failedVerifications, 1, 'A chain verification found broken records');
    // A verification the sweep keeps re-queuing without progress (issue 32).
    alarmOnWorkerLog(
      'integrity-verify-sweep',
      'StuckVerifications',
      VERIFICATION_STUCK_LOG,
      'stuck-verifications',
      'A chain verification keeps failing: re-queued by the sweep again and again without progress',
    );

    // Issue 32: a dependency that stalls or fails turns requests into 503s. Each such call is logged (WARN,
    // DEPENDENCY_UNAVAILABLE_LOG with its `dependency`); one metric per dependency counts them over every function.
    for (const [path, logGroup] of logGroups) {
      new MetricFilter(this, `${pascal(path.split('/').slice(1).join('-'))}DependencyUnavailable`, {
        logGroup,
        metricNamespace: metricNamespace(stage.name),
        metricName: 'DependencyUnavailable',
        filterPattern: FilterPattern.stringValue('$.message', '=', DEPENDENCY_UNAVAILABLE_LOG),
        metricValue: '1',
        dimensions: { Dependency: '$.dependency' },
      });
    }
    const dependencyErrors = WATCHED_DEPENDENCIES.map((dependency) => {
      const metric = new Metric({
        namespace: metricNamespace(stage.name),
        metricName: 'DependencyUnavailable',
        dimensionsMap: { Dependency: dependency },
        period,
        statistic: 'Sum',
        label: dependency,
      });
      alarm(
        `dependency-${dependency}-unavailable`,
        metric,
        DEPENDENCY_ALARM_THRESHOLD,
        `Calls to the ${dependency} that stalled past their budget or failed (answered 503)`,
      );
      return metric;
    });

    // 5xx answers (503 included) per route area, counted per route key from the access logs; an area's alarm sums
    // its routes' counts, at most 10 metrics per alarm (an area of more routes gets one alarm per 10).
    new MetricFilter(this, 'ServerErrorsByRoute', {
      logGroup: props.accessLogs,
      metricNamespace: metricNamespace(stage.name),
      metricName: 'ServerErrors',
      filterPattern: FilterPattern.numberValue('$.status', '>=', 500),
      metricValue: '1',
      dimensions: { RouteKey: '$.routeKey' },
    });
    const areaErrors: IMetric[] = [];
    // Metric ids are unique across the areas: the dashboard graphs every area's sum together.
    let metricId = 0;
    for (const [area, routes] of Object.entries(props.routeAreas)) {
      const keys = httpRoutes(routes).map(({ method, path }) => `${method} ${path}`);
      for (let start = 0, part = 1; start < keys.length; start += MAX_ALARM_METRICS, part++) {
        const slice = keys.slice(start, start + MAX_ALARM_METRICS);
        const usingMetrics: Record<string, IMetric> = {};
        slice.forEach((routeKey) => {
          usingMetrics[`e${metricId++}`] = new Metric({
            namespace: metricNamespace(stage.name),
            metricName: 'ServerErrors',
            dimensionsMap: { RouteKey: routeKey },
            period,
            statistic: 'Sum',
          });
        });
        const suffix = keys.length > MAX_ALARM_METRICS ? `-${part}` : '';
        const sum = new MathExpression({
          expression: Object.keys(usingMetrics).join(' + '),
          usingMetrics,
          label: `5xx of ${area}${suffix}`,
          period,
        });
        areaErrors.push(sum);
        alarm(
          `${area}-5xx${suffix}`,
          sum,
          AREA_5XX_ALARM_THRESHOLD,
          `5xx answers (503 included) of the ${area} routes: ${slice.join(', ')}`,
        );
      }
    }

    // Tampering: the tamper watch logs one ERROR line per ledger row found changed or removed outside the service,
    // and per chain head removed (docs/operations.md, "Tampering detected").
    const tampering = new Metric({
      namespace: metricNamespace(stage.name),
      metricName: TAMPERING_METRIC,
      period: Duration.minutes(1),
      statistic: 'Sum',
    });
    for (const [path, logGroup] of logGroups) {
      new MetricFilter(this, `${pascal(path.split('/').slice(1).join('-'))}TamperingDetected`, {
        logGroup,
        metricNamespace: metricNamespace(stage.name),
        metricName: TAMPERING_METRIC,
        filterPattern: FilterPattern.stringValue('$.message', '=', TAMPERING_DETECTED_LOG),
        metricValue: '1',
      });
    }
    alarm(
      'ledger-tampering-detected',
      tampering,
      1,
      'LEDGER_TAMPERING_DETECTED: a ledger row was changed or removed outside the service (see backup-status)',
    );
    // A witness refused a checkpoint (422): it holds another history of a firm's log.
    const witnessRefusals = alarmOnWorkerLog(
      'log-witness',
      'WitnessRefusals',
      WITNESS_REFUSED_LOG,
      'witness-refusals',
      'A witness refused a checkpoint (bad consistency proof): it saw another history of a firm’s log',
    );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: `gls-${stage.name}-${Stack.of(this).region}`,
      defaultInterval: Duration.hours(24),
    });
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Requests and 5xx',
        left: [requests, serverErrors],
        right: [errorRate],
        width: 12,
      }),
      new GraphWidget({
        title: 'Latency p50 / p99 (ms)',
        left: [httpApi.metricLatency({ period, statistic: 'p50' }), p99],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Lambda throttles', left: throttles, width: 8, legendPosition: undefined }),
      new GraphWidget({ title: 'Dead-letter queue depth', left: deadLetters, width: 8 }),
      new GraphWidget({ title: 'Failed chain verifications', left: [failedVerifications], width: 8 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Dependency calls given up (503)', left: dependencyErrors, width: 12 }),
      new GraphWidget({ title: '5xx per route area', left: areaErrors, width: 12 }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({ title: 'Ledger tampering detected', left: [tampering], width: 16 }),
      new GraphWidget({ title: 'Witness refusals (split view)', left: [witnessRefusals], width: 8 }),
    );
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24 }));
  }
}
