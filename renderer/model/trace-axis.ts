/**
 * The endpointing traces' time axis: round ticks counted from a zero that means something (the end of
 * the user's speech for a turn, as on the turn's timeline; "now" for the live trace), placed as
 * fractions of the trace's width. Times before the zero are positions, written with a minus sign.
 */
import { niceTicks } from './latency';

export interface AxisTick {
  /** 0..1 across the trace. */
  at: number;
  label: string;
  zero: boolean;
}

function seconds(ms: number): string {
  const s = Math.abs(ms) / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(s < 1 ? 2 : 1).replace(/0$/, '')} s`;
}

export function traceAxis(span: { from: number; to: number }, zeroMs: number, zeroLabel: string, most = 6): AxisTick[] {
  const width = span.to - span.from;
  if (!(width > 0)) return [];
  const { ticks } = niceTicks(span.from - zeroMs, span.to - zeroMs, most);
  return ticks
    .map((t) => ({ at: (t + zeroMs - span.from) / width, label: t === 0 ? zeroLabel : `${t < 0 ? '−' : '+'}${seconds(t)}`, zero: t === 0 }))
    .filter((k) => k.at >= -1e-9 && k.at <= 1 + 1e-9);
}
