/** Rates and their uncertainty, shared by every governance report. Pure: no storage, no clock. */

/** k out of n as a fraction, or null when there is nothing to divide (n = 0): "no data" is not "0 %". */
export function rate(k: number, n: number): number | null {
  return n > 0 ? k / n : null;
}

/** z of a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;

export interface Interval {
  lower: number;
  upper: number;
}

/**
 * Wilson score interval of a binomial proportion k/n (95 % by default). Unlike the normal ("Wald")
 * interval it stays inside [0, 1] and is honest for small samples and for rates of 0 or 1, which is where
 * fairness reports on small client segments live. Null when n = 0.
 */
export function wilsonInterval(k: number, n: number, z = Z_95): Interval | null {
  if (n <= 0) return null;
  const p = k / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At k = 0 and k = n the bounds are exactly 0 and 1; floating point would leave 1e-17 or 0.9999999999999999.
  return {
    lower: k === 0 ? 0 : Math.max(0, centre - half),
    upper: k === n ? 1 : Math.min(1, centre + half),
  };
}

/**
 * value >= threshold, tolerant of floating-point noise: 0.15 - 0.1 is 0.04999999999999999, and a change of
 * exactly a threshold must reach it.
 */
export function reaches(value: number, threshold: number): boolean {
  return value >= threshold - 1e-9;
}
