/**
 * The compliance officer's dashboard: Consumer Duty outcomes by month and SLA compliance, bias rates per segment
 * with their 95 % intervals and flags, model drift signals, and the incident trend. Each chart is a figure with a
 * caption, a summary in words and its numbers as a table (the text alternative).
 */
import { useState } from 'react';
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { components } from '../../../../clients/typescript/index';
import { useApi } from '../../app/api';
import { ErrorMessage, Loading, Page } from '../../app/ui';
import { ChartFigure, percent, useApiLoad, words } from '../common';

type Schemas = components['schemas'];

const COLOURS = {
  approved: '#1b7a3a',
  modified: '#8a5a00',
  rejected: '#b3261e',
  neutral: '#2457a6',
  muted: '#5f6b7a',
};

/** The first day of the month `months` months before this one (UTC), as YYYY-MM-DD. */
function monthsAgo(months: number): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, 1)).toISOString().slice(0, 10);
}

const PERIODS = [
  { value: '3', label: 'Last 3 months' },
  { value: '6', label: 'Last 6 months' },
  { value: '12', label: 'Last 12 months' },
];

export function GovernanceDashboard() {
  const [months, setMonths] = useState('12');
  const from = monthsAgo(Number(months) - 1);
  return (
    <Page title="Governance">
      <div className="toolbar">
        <label htmlFor="dashboard-period">Period</label>
        <select id="dashboard-period" value={months} onChange={(e) => setMonths(e.target.value)}>
          {PERIODS.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <div className="dashboard-grid">
        <ConsumerDutyCharts from={from} />
        <BiasChart from={from} />
        <DriftChart />
        <IncidentTrend />
      </div>
    </Page>
  );
}

function ConsumerDutyCharts({ from }: { from: string }) {
  const api = useApi();
  const report = useApiLoad(
    () => api.GET('/v1/reports/consumer-duty', { params: { query: { from } } }),
    [api, from],
  );
  if (report.loading && !report.data) return <Loading label="Loading the Consumer Duty report" />;
  if (report.error || !report.data) return <ErrorMessage error={report.error} />;
  const m = report.data.metrics;
  const monthly = m.monthly.map((b) => ({
    month: b.month,
    approved: b.approved,
    modified: b.approvedWithModifications,
    rejected: b.rejected,
    sla: b.slaComplianceRate === null ? null : Math.round(b.slaComplianceRate * 1000) / 10,
    total: b.total,
    breached: b.breached,
  }));
  return (
    <>
      {report.loading && <Loading label="Updating the Consumer Duty report for the new period" />}
      <section className="kpis" aria-label="Consumer Duty headline figures">
        <Kpi label="Reviews completed" value={String(m.outcomes.total)} />
        <Kpi
          label="Rejection rate"
          value={percent(m.outcomes.rejectionRate)}
          state={m.states.rejectionRate}
        />
        <Kpi
          label="SLA compliance"
          value={percent(m.slaCompliance.complianceRate)}
          state={m.states.slaCompliance}
        />
        <Kpi label="Read completion" value={percent(m.readCompletionRate)} state={m.states.readCompletion} />
      </section>
      <ChartFigure
        id="cd-outcomes"
        title="Consumer Duty outcomes by month"
        summary={`${m.outcomes.total} reviews: ${m.outcomes.approved} approved, ${m.outcomes.approvedWithModifications} approved with modifications, ${m.outcomes.rejected} rejected (rejection rate ${percent(m.outcomes.rejectionRate)}; previous period ${percent(m.previousPeriod.outcomes.rejectionRate)}).`}
        rows={monthly}
        rowKey={(r) => r.month}
        columns={[
          { header: 'Month', cell: (r) => r.month },
          { header: 'Approved', cell: (r) => r.approved },
          { header: 'Approved with modifications', cell: (r) => r.modified },
          { header: 'Rejected', cell: (r) => r.rejected },
        ]}
      >
        <ResponsiveContainer width="100%" height={260}>
          <BarChart accessibilityLayer={false} data={monthly}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="month" />
            <YAxis allowDecimals={false} />
            <Tooltip />
            <Legend />
            <Bar
              isAnimationActive={false}
              dataKey="approved"
              name="Approved"
              stackId="o"
              fill={COLOURS.approved}
            />
            <Bar
              isAnimationActive={false}
              dataKey="modified"
              name="With modifications"
              stackId="o"
              fill={COLOURS.modified}
            />
            <Bar
              isAnimationActive={false}
              dataKey="rejected"
              name="Rejected"
              stackId="o"
              fill={COLOURS.rejected}
            />
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
      <ChartFigure
        id="cd-sla"
        title="SLA compliance by month"
        summary={`${m.slaCompliance.withinSla} of ${m.slaCompliance.completed} reviews within the 48-hour SLA (${percent(m.slaCompliance.complianceRate)}), ${m.slaCompliance.breached} breached; state: ${words(m.states.slaCompliance)}.`}
        rows={monthly}
        rowKey={(r) => r.month}
        columns={[
          { header: 'Month', cell: (r) => r.month },
          { header: 'Completed', cell: (r) => r.total },
          { header: 'Breached', cell: (r) => r.breached },
          { header: 'SLA compliance', cell: (r) => (r.sla === null ? 'no data' : `${r.sla} %`) },
        ]}
      >
        <ResponsiveContainer width="100%" height={240}>
          <LineChart accessibilityLayer={false} data={monthly}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="month" />
            <YAxis domain={[0, 100]} unit=" %" />
            <Tooltip />
            <Line
              isAnimationActive={false}
              type="monotone"
              dataKey="sla"
              name="SLA compliance"
              stroke={COLOURS.neutral}
              connectNulls
            />
          </LineChart>
        </ResponsiveContainer>
      </ChartFigure>
    </>
  );
}

function Kpi(props: { label: string; value: string; state?: string }) {
  return (
    <div className={`kpi kpi-${props.state ?? 'none'}`}>
      <span className="kpi-label">{props.label}</span>
      <span className="kpi-value">{props.value}</span>
      {props.state && <span className="kpi-state">{words(props.state)}</span>}
    </div>
  );
}

interface SegmentRow {
  dimension: string;
  segment: string;
  rate: number;
  interval: [number, number];
  lower: number | null;
  upper: number | null;
  total: number;
  significant: boolean;
}

function segmentRows(dimensions: Schemas['SegmentDimension'][]): SegmentRow[] {
  return dimensions.flatMap((d) =>
    d.segments
      .filter((s) => s.rejectionRate !== null)
      .map((s) => {
        const rate = (s.rejectionRate ?? 0) * 100;
        const lower = s.rejectionRateInterval ? s.rejectionRateInterval.lower * 100 : null;
        const upper = s.rejectionRateInterval ? s.rejectionRateInterval.upper * 100 : null;
        return {
          dimension: d.dimension,
          segment: `${d.dimension}: ${s.value}`,
          rate: Math.round(rate * 10) / 10,
          interval: [lower === null ? 0 : rate - lower, upper === null ? 0 : upper - rate] as [
            number,
            number,
          ],
          lower,
          upper,
          total: s.total,
          significant: s.significant,
        };
      }),
  );
}

function BiasChart({ from }: { from: string }) {
  const api = useApi();
  const report = useApiLoad(() => api.GET('/v1/bias', { params: { query: { from } } }), [api, from]);
  if (report.loading && !report.data) return <Loading label="Loading the bias report" />;
  if (report.error || !report.data) return <ErrorMessage error={report.error} />;
  const b = report.data;
  const rows = segmentRows(b.dimensions);
  const one = (n: number | null) => (n === null ? '—' : `${n.toFixed(1)} %`);
  return (
    <div className="chart-group">
      {report.loading && <Loading label="Updating the bias report for the new period" />}
      <ChartFigure
        id="bias"
        title="Rejection rate per client segment"
        summary={`${b.totalRecords} completed reviews; overall rejection rate ${percent(b.overallRejectionRate)}. Bars show each segment's rate, whiskers its ${Math.round(b.method.confidenceLevel * 100)} % ${b.method.interval === 'wilson' ? 'Wilson score' : b.method.interval} interval. ${b.flags.length === 0 ? 'No flags.' : `${b.flags.length} flag(s), listed below.`}`}
        rows={rows}
        rowKey={(r) => r.segment}
        columns={[
          { header: 'Segment', cell: (r) => r.segment },
          { header: 'Reviews', cell: (r) => r.total },
          { header: 'Rejection rate', cell: (r) => `${r.rate.toFixed(1)} %` },
          { header: 'Interval', cell: (r) => `${one(r.lower)} to ${one(r.upper)}` },
          { header: 'Significant', cell: (r) => (r.significant ? 'Yes' : 'No') },
        ]}
      >
        <ResponsiveContainer width="100%" height={Math.max(200, rows.length * 34 + 60)}>
          <BarChart accessibilityLayer={false} data={rows} layout="vertical" margin={{ left: 24 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis type="number" domain={[0, 100]} unit=" %" />
            <YAxis type="category" dataKey="segment" width={150} />
            <Tooltip />
            <Bar isAnimationActive={false} dataKey="rate" name="Rejection rate" fill={COLOURS.neutral}>
              <ErrorBar dataKey="interval" width={6} stroke={COLOURS.muted} direction="x" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      </ChartFigure>
      <section aria-labelledby="bias-flags-title" className="flags">
        <h3 id="bias-flags-title">Bias flags</h3>
        {b.flags.length === 0 ? (
          <p>No segment is flagged.</p>
        ) : (
          <ul>
            {b.flags.map((f, i) => (
              <li key={i} className={`flag flag-${f.severity}`}>
                <strong>{words(f.severity)}</strong> ({f.kind}) {f.message}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function DriftChart() {
  const api = useApi();
  const report = useApiLoad(() => api.GET('/v1/models/drift'), [api]);
  if (report.loading && !report.data) return <Loading label="Loading model drift" />;
  if (report.error || !report.data) return <ErrorMessage error={report.error} />;
  const d = report.data;
  const scale = (metric: string, v: number) => (metric === 'annotationFrequency' ? v : v * 100);
  const rows = d.signals.map((s) => ({
    label: `${s.provider} ${s.version}: ${words(s.metric)}`,
    baseline: Math.round(scale(s.metric, s.baselineValue) * 10) / 10,
    current: Math.round(scale(s.metric, s.currentValue) * 10) / 10,
    severity: s.severity,
    message: s.message,
  }));
  return (
    <ChartFigure
      id="drift"
      title="Model drift signals"
      summary={
        rows.length === 0
          ? `No drift: no model changed beyond its thresholds between the ${d.baselineWindowDays}-day baseline and the last ${d.currentWindowDays} days (a model needs at least 5 completed reviews in both).`
          : `${rows.length} signal(s) comparing the last ${d.currentWindowDays} days with the ${d.baselineWindowDays}-day baseline: ${rows.map((r) => `${r.label} (${r.severity})`).join('; ')}. Rates in %, annotation frequency per review.`
      }
      rows={rows}
      rowKey={(r) => r.label}
      columns={[
        { header: 'Model and metric', cell: (r) => r.label },
        { header: 'Baseline', cell: (r) => r.baseline },
        { header: 'Current', cell: (r) => r.current },
        { header: 'Severity', cell: (r) => words(r.severity) },
        { header: 'Message', cell: (r) => r.message },
      ]}
    >
      <ResponsiveContainer width="100%" height={Math.max(200, rows.length * 50 + 60)}>
        <BarChart accessibilityLayer={false} data={rows} layout="vertical" margin={{ left: 24 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis type="number" />
          <YAxis type="category" dataKey="label" width={170} />
          <Tooltip />
          <Legend />
          <Bar isAnimationActive={false} dataKey="baseline" name="Baseline" fill={COLOURS.muted} />
          <Bar isAnimationActive={false} dataKey="current" name="Current" fill={COLOURS.rejected} />
        </BarChart>
      </ResponsiveContainer>
    </ChartFigure>
  );
}

function IncidentTrend() {
  const api = useApi();
  const stats = useApiLoad(() => api.GET('/v1/incidents/stats'), [api]);
  if (stats.loading && !stats.data) return <Loading label="Loading incident statistics" />;
  if (stats.error || !stats.data) return <ErrorMessage error={stats.error} />;
  const s = stats.data;
  const rows = s.trend;
  return (
    <ChartFigure
      id="incidents"
      title="Incident trend (12 months)"
      summary={`${s.total} incidents: ${s.open} open, ${s.resolved} resolved, ${s.critical} critical.`}
      rows={s.total === 0 ? [] : rows}
      rowKey={(r) => r.month}
      columns={[
        { header: 'Month', cell: (r) => r.month },
        { header: 'Reported', cell: (r) => r.reported },
        { header: 'Resolved', cell: (r) => r.resolved },
        { header: 'Critical', cell: (r) => r.critical },
      ]}
    >
      <ResponsiveContainer width="100%" height={240}>
        <LineChart accessibilityLayer={false} data={rows}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="month" />
          <YAxis allowDecimals={false} />
          <Tooltip />
          <Legend />
          <Line
            isAnimationActive={false}
            type="monotone"
            dataKey="reported"
            name="Reported"
            stroke={COLOURS.neutral}
          />
          <Line
            isAnimationActive={false}
            type="monotone"
            dataKey="resolved"
            name="Resolved"
            stroke={COLOURS.approved}
          />
          <Line
            isAnimationActive={false}
            type="monotone"
            dataKey="critical"
            name="Critical"
            stroke={COLOURS.rejected}
          />
        </LineChart>
      </ResponsiveContainer>
    </ChartFigure>
  );
}
