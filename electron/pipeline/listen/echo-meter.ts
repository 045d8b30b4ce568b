import type { EchoWindowStats } from './echo-canceller';

/** One window the canceller worked on (pipeline clock at its end). */
interface MeteredWindow {
  atMs: number;
  micEnergy: number;
  outEnergy: number;
  /** The VAD heard no user speech in it. */
  userSilent: boolean;
}

/** How well the echo was cancelled over one span: ERLE in dB, over all of it and after its first second. */
export interface EchoMeasure {
  erleDb: number | null;
  /** After the span's first second, once the canceller has had time to learn (null: too short). */
  erleSettledDb: number | null;
}

/** Windows kept: two minutes, longer than any answer. */
const KEEP = 3750;
/** The cost kept for the benchmark: the last this many windows' canceller time. */
const KEEP_COSTS = 4000;

/**
 * Echo return loss enhancement as the pipeline ran: for each window with echo expected, the
 * microphone's energy and what the canceller left, and whether the user was silent. A turn's report
 * asks for the span its answer played; only windows where the user was silent count (their voice
 * is not echo left over).
 */
export class EchoMeter {
  private readonly windows: MeteredWindow[] = [];
  private readonly costs: number[] = [];

  add(atMs: number, stats: EchoWindowStats, userSilent: boolean, costMs: number): void {
    if (!stats.active) return;
    this.windows.push({ atMs, micEnergy: stats.micEnergy, outEnergy: stats.outEnergy, userSilent });
    if (this.windows.length > KEEP) this.windows.shift();
    this.costs.push(costMs);
    if (this.costs.length > KEEP_COSTS) this.costs.shift();
  }

  /** The ERLE over windows ending in (fromMs, toMs] (pipeline clock). */
  over(fromMs: number, toMs: number): EchoMeasure {
    const span = this.windows.filter((w) => w.userSilent && w.atMs > fromMs && w.atMs <= toMs);
    return { erleDb: erle(span), erleSettledDb: erle(span.filter((w) => w.atMs > fromMs + 1000)) };
  }

  /** The canceller's time per window (ms), the most recent last. */
  get costMs(): readonly number[] {
    return this.costs;
  }
}

function erle(ws: MeteredWindow[]): number | null {
  if (ws.length === 0) return null;
  let mic = 0;
  let out = 0;
  for (const w of ws) {
    mic += w.micEnergy;
    out += w.outEnergy;
  }
  // A silent microphone has no echo to measure.
  if (mic <= 1e-9 * ws.length) return null;
  return Math.round(10 * Math.log10(mic / Math.max(out, 1e-12)) * 10) / 10;
}
