/**
 * Report periods: parsing the from/to query values and cutting windows into UTC days, ISO weeks and
 * months. Every window is a closed interval of instants [from, to] in milliseconds.
 */
import type { ErrorDetail } from '../../errors.js';

export const DAY_MS = 86_400_000;

export interface Period {
  /** Epoch milliseconds, inclusive. */
  from: number;
  /** Epoch milliseconds, inclusive. */
  to: number;
}

/**
 * Bounds of a requested report period (issue 12, part 5): each bound between 1970-01-01 and 9999-12-31 (UTC),
 * and at most MAX_PERIOD_DAYS from `from` to `to`, so a request reads and returns a bounded amount of data.
 */
export const MAX_PERIOD_DAYS = 366;
export const EARLIEST_BOUND = '1970-01-01';
export const LATEST_BOUND = '9999-12-31';
export const EARLIEST_BOUND_MS = Date.parse(`${EARLIEST_BOUND}T00:00:00.000Z`);
export const LATEST_BOUND_MS = Date.parse(`${LATEST_BOUND}T23:59:59.999Z`);

/** How the bounds read in route descriptions and error messages. */
export const PERIOD_BOUNDS_TEXT = `each bound between ${EARLIEST_BOUND} and ${LATEST_BOUND}, to at most ${MAX_PERIOD_DAYS} days after from`;

/**
 * What is wrong with a requested period, as error details (empty when nothing is): a bound that is not a date
 * (null) or lies outside EARLIEST_BOUND..LATEST_BOUND; else `from` after `to`; else a span over MAX_PERIOD_DAYS.
 */
export function periodProblems(from: number | null, to: number | null): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const [side, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (value === null) problems.push({ path: `query.${side}`, message: 'Not an ISO date or date-time' });
    else if (value < EARLIEST_BOUND_MS || value > LATEST_BOUND_MS)
      problems.push({
        path: `query.${side}`,
        message: `Must lie between ${EARLIEST_BOUND} and ${LATEST_BOUND} (UTC)`,
      });
  }
  if (problems.length > 0 || from === null || to === null) return problems;
  if (from > to) return [{ path: 'query.from', message: 'from must not be after to' }];
  if (to - from > MAX_PERIOD_DAYS * DAY_MS)
    return [{ path: 'query.to', message: `The period must not be longer than ${MAX_PERIOD_DAYS} days` }];
  return [];
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether the value is a calendar date without a time (YYYY-MM-DD). */
export function isDateOnly(value: string): boolean {
  return DATE_ONLY.test(value);
}

/**
 * A from/to bound: a date-only `from` is the start of that UTC day, a date-only `to` the last millisecond
 * of it (23:59:59.999), so that `to` is inclusive of the whole day named. Null for an invalid value.
 */
export function parseBound(value: string, side: 'from' | 'to'): number | null {
  if (isDateOnly(value)) {
    const start = Date.parse(`${value}T00:00:00.000Z`);
    if (Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== value) return null;
    return side === 'from' ? start : start + DAY_MS - 1;
  }
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? null : instant;
}

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function endOfUtcDay(ms: number): number {
  return startOfUtcDay(ms) + DAY_MS - 1;
}

/** YYYY-MM-DD of the UTC day holding the instant. */
export function dayKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** YYYY-MM of the UTC month holding the instant. */
export function monthKey(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

/** Start (00:00 UTC) of the calendar quarter holding the instant. */
export function startOfUtcQuarter(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), Math.floor(date.getUTCMonth() / 3) * 3, 1);
}

/** The same instant `months` calendar months earlier (day clamped to the target month's length). */
export function monthsBefore(ms: number, months: number): number {
  const date = new Date(ms);
  const target = new Date(ms);
  target.setUTCDate(1);
  target.setUTCMonth(target.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target.getTime();
}

/** Monday 00:00 UTC of the ISO week holding the instant. */
export function startOfIsoWeek(ms: number): number {
  const day = startOfUtcDay(ms);
  const weekday = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return day - weekday * DAY_MS;
}

/** The UTC days a period touches, oldest first (YYYY-MM-DD). */
export function daysOf(period: Period): string[] {
  const days: string[] = [];
  for (let day = startOfUtcDay(period.from); day <= period.to; day += DAY_MS) days.push(dayKey(day));
  return days;
}

/** The months a period touches, oldest first (YYYY-MM). */
export function monthsOf(period: Period): string[] {
  const months: string[] = [];
  const start = new Date(period.from);
  for (let y = start.getUTCFullYear(), m = start.getUTCMonth(); ; m++) {
    const first = Date.UTC(y, m, 1);
    if (first > period.to) break;
    months.push(monthKey(first));
  }
  return months;
}

/**
 * How a period splits for reading pre-aggregated data: the whole UTC days inside it (read from day
 * buckets) and at most two partial edge ranges (read job by job). A period that starts at 00:00:00.000 and
 * ends at 23:59:59.999 has no partial edges.
 */
export interface PeriodSplit {
  /** First and last whole day (YYYY-MM-DD), or null when no day is wholly inside the period. */
  wholeDays: { first: string; last: string } | null;
  partial: Period[];
}

export function splitPeriod(period: Period): PeriodSplit {
  const { from, to } = period;
  if (to < from) return { wholeDays: null, partial: [] };
  const firstWhole = from === startOfUtcDay(from) ? from : startOfUtcDay(from) + DAY_MS;
  const lastWholeEnd = to === endOfUtcDay(to) ? to : startOfUtcDay(to) - 1;
  if (firstWhole > lastWholeEnd) return { wholeDays: null, partial: [{ from, to }] };
  const partial: Period[] = [];
  if (from < firstWhole) partial.push({ from, to: firstWhole - 1 });
  if (to > lastWholeEnd) partial.push({ from: lastWholeEnd + 1, to });
  return { wholeDays: { first: dayKey(firstWhole), last: dayKey(lastWholeEnd) }, partial };
}

/**
 * How a range of whole days splits for reading: the whole calendar months inside it (read from month
 * buckets) and the leading and trailing days outside those months (read from day buckets).
 */
export interface DaySplit {
  months: { first: string; last: string } | null;
  days: { first: string; last: string }[];
}

export function splitDays(first: string, last: string): DaySplit {
  const start = Date.parse(`${first}T00:00:00.000Z`);
  const end = Date.parse(`${last}T00:00:00.000Z`);
  const startDate = new Date(start);
  const firstMonth =
    startDate.getUTCDate() === 1
      ? start
      : Date.UTC(startDate.getUTCFullYear(), startDate.getUTCMonth() + 1, 1);
  const endDate = new Date(end);
  // The first day of the month after the last whole month.
  const afterLastMonth =
    end + DAY_MS === Date.UTC(endDate.getUTCFullYear(), endDate.getUTCMonth() + 1, 1)
      ? end + DAY_MS
      : Date.UTC(endDate.getUTCFullYear(), endDate.getUTCMonth(), 1);
  if (firstMonth >= afterLastMonth) return { months: null, days: [{ first, last }] };
  const days: { first: string; last: string }[] = [];
  if (start < firstMonth) days.push({ first, last: dayKey(firstMonth - DAY_MS) });
  if (afterLastMonth <= end) days.push({ first: dayKey(afterLastMonth), last });
  return { months: { first: monthKey(firstMonth), last: monthKey(afterLastMonth - DAY_MS) }, days };
}
