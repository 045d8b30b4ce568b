/**
 * What the linear filter leaves of the echo, taken down further: the residual's power is estimated
 * from the filter's own echo estimate (`leak` times its power), and the block is attenuated by how
 * much of its power that explains. When the user talks, their voice is far louder than the residual
 * and passes nearly untouched; when only the echo's remains are there, they are pushed down to the
 * floor. Broadband and per block, with the gain ramped across each block so no step is heard.
 *
 * `leak` follows the lowest ratio of residual to echo-estimate power seen lately: down at once, up
 * slowly. The user's voice only ever raises that ratio, so talking over the answer cannot teach the
 * suppressor that the echo is louder than it is (and then take the user's words for it).
 */
/** How fast `leak` may rise per block (16 ms): about 5 dB a second, for a path that got worse. */
const RISE = 1.02;
/** The gain never goes below this (-40 dB): the suppressor must not gate the user out entirely. */
const FLOOR = 0.01;
/** Over-subtraction: the residual estimate from the filter's echo estimate is trusted this many times over, */
const OVER = 2;
/** and the coarse one (from the reference alone, blind to where the filter fails) this many. */
const OVER_COARSE = 4;
/** Before any echo was seen, the residual is assumed to be this share of the echo estimate's power (-10 dB). */
const START_LEAK = 0.1;
const MIN_LEAK = 1e-4;

export class EchoSuppressor {
  /** The share of the echo estimate's power the linear filter leaves behind. */
  leak = START_LEAK;
  /** The residual's share, averaged over the last few blocks. */
  private ratio = START_LEAK;
  private gain = 1;

  /** Starts over (a new echo path). */
  reset(): void {
    this.leak = this.ratio = START_LEAK;
    this.gain = 1;
  }

  /**
   * One block: `residual` is the linear filter's output, `echo` its echo estimate (same length).
   * `coarse`: the residual's power as judged from the reference alone, which covers the time
   * before the filter has converged. Writes the suppressed block into `out` from `offset`.
   */
  process(residual: Float64Array, echo: Float64Array, out: Float32Array, offset: number, coarse = 0): void {
    const n = residual.length;
    let pe = 0;
    let py = 0;
    for (let i = 0; i < n; i++) {
      pe += residual[i]! * residual[i]!;
      py += echo[i]! * echo[i]!;
    }
    if (py > 1e-9 * n) {
      // Averaged over a few blocks first: one lucky block must not make the suppressor trust the filter.
      this.ratio += 0.2 * (Math.min(1, pe / py) - this.ratio);
      this.leak = Math.max(MIN_LEAK, Math.min(this.leak * RISE, this.ratio));
    }
    const left = Math.max(OVER * this.leak * py, OVER_COARSE * coarse * n);
    const target = pe > 0 ? Math.max(FLOOR, Math.min(1, 1 - left / pe)) : 1;
    // Down at once (echo must not slip through while the gain falls), up across the block.
    const from = Math.min(this.gain, target);
    for (let i = 0; i < n; i++) out[offset + i] = residual[i]! * (from + ((target - from) * (i + 1)) / n);
    this.gain = target;
  }
}
