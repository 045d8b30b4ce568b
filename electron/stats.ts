/** Percentiles for reports and benchmarks (nearest rank: every value reported is one that was measured). */

/** The q-quantile (0..1) of the finite values; null for none. */
export function percentile(values: readonly (number | null)[], q: number): number | null {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v)).sort((a, b) => a - b);
  if (xs.length === 0) return null;
  const rank = Math.min(xs.length, Math.max(1, Math.ceil(q * xs.length)));
  return xs[rank - 1]!;
}

export interface Distribution {
  n: number;
  median: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

export function distribution(values: readonly (number | null)[]): Distribution {
  const xs = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const r = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);
  return { n: xs.length, median: r(percentile(xs, 0.5)), p95: r(percentile(xs, 0.95)), p99: r(percentile(xs, 0.99)), max: r(percentile(xs, 1)) };
}
