/**
 * Splits a signal into frequency bands that add back up to it exactly, with no delay: each band is
 * the difference of two low-passes (the lowest band a low-pass, the highest what the last low-pass
 * leaves). The bands overlap where the low-passes roll off, which suits what it is for: judging and
 * scaling loudness per region of the spectrum without a frame's latency.
 */
export class BandSplit {
  readonly bands: number;
  private readonly coef: Float64Array[];
  /** Each low-pass's two state values (transposed direct form II). */
  private readonly state: Float64Array[];
  private lastLow = new Float64Array(0);

  /** `edgesHz`: the low-passes' corner frequencies, rising; there is one band more than edges. */
  constructor(sampleRate: number, edgesHz: readonly number[]) {
    this.bands = edgesHz.length + 1;
    this.coef = edgesHz.map((f) => lowPass(f, sampleRate));
    this.state = edgesHz.map(() => new Float64Array(2));
  }

  /** Writes band k of `x` into `out[k]` (each as long as `x`). */
  split(x: ArrayLike<number>, out: Float64Array[]): void {
    const n = x.length;
    // The last low-pass, reused from call to call (this runs on every block of the audio path).
    if (this.lastLow.length < n) this.lastLow = new Float64Array(n);
    const below = this.lastLow;
    for (let k = 0; k < this.coef.length; k++) {
      const [b0, b1, b2, a1, a2] = this.coef[k]!;
      const s = this.state[k]!;
      const o = out[k]!;
      let s1 = s[0]!;
      let s2 = s[1]!;
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        const y = b0! * v + s1;
        s1 = b1! * v - a1! * y + s2;
        s2 = b2! * v - a2! * y;
        o[i] = y;
      }
      s[0] = s1;
      s[1] = s2;
      // o holds the low-pass; the band is it less the one below, which stays needed for the next band.
      for (let i = 0; i < n; i++) {
        const lp = o[i]!;
        o[i] = k === 0 ? lp : lp - below[i]!;
        below[i] = lp;
      }
    }
    const top = out[this.coef.length]!;
    for (let i = 0; i < n; i++) top[i] = x[i]! - (this.coef.length > 0 ? below[i]! : 0);
  }
}

/** A second-order Butterworth low-pass (the audio EQ cookbook's), normalised: [b0, b1, b2, a1, a2]. */
function lowPass(hz: number, sampleRate: number): Float64Array {
  const w = (2 * Math.PI * hz) / sampleRate;
  const alpha = Math.sin(w) / Math.SQRT2;
  const c = Math.cos(w);
  const a0 = 1 + alpha;
  return Float64Array.from([(1 - c) / 2 / a0, (1 - c) / a0, (1 - c) / 2 / a0, (-2 * c) / a0, (1 - alpha) / a0]);
}
