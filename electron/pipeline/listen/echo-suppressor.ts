/**
 * What the linear filter leaves of the echo, taken down further, band by band: in each band the
 * residual's power is estimated from the filter's own echo estimate (`leak` times its power) and
 * from the reference alone (the coarse estimate, which covers the filter's blind spots), and the
 * band is attenuated by how much of its power that explains. Per band, because the assistant's
 * voice and the user's rarely fill the same part of the spectrum at once: a user's "s" (high) passes
 * while the echo's vowels (low) are held down. When only the echo's remains are there, they are
 * pushed down to the floor. The gains are ramped across each block so no step is heard.
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
/**
 * A band whose power is this many times its estimated residual (10 dB), and more than all the echo
 * the reference could bring to it, is the user's, whatever the block.
 */
const CLEAR = 10;
/**
 * The filter's output above this share of its echo estimate (-3 dB): it is not cancelling this block;
 * and a block this far (3 dB) below the echo the reference could bring may then be all echo. (Closer
 * to it, it is as likely the user talking over the answer at its own level.)
 */
const FAILING = 0.5;
const FAILING_BOUND = 0.5;
/**
 * The background filter had learnt to cancel at least this share of the block's residual (3 dB):
 * the block is mostly echo of a sound the answer just began to make, not yet taken up by the
 * foreground filter: the whole block's gain goes to the floor. (The user's voice cannot be learnt
 * from the reference: over it the background cancels no better than the foreground.)
 */
const MOSTLY_LEARNT = 0.5;
/**
 * The same before the filter has settled (an answer's first second and a half): its average then
 * overstates what it cancels of a sound it has not met yet, and a block the background had learnt
 * a third of was a fricative of the answer's passing 20 dB down (small room, gain 1, 0.7 s in),
 * enough for the VAD. A user talking that early is held down more, as elsewhere in those moments.
 * Not while no echo path has been found (headphones): there is no echo to hold down, and the
 * background can fit the user's voice by chance (see the echo filter's HEARD_ECHO_FOUND_RATIO).
 */
const MOSTLY_LEARNT_UNSETTLED = 0.3;

/**
 * Bands from this one up (above 2 kHz, with the canceller's BAND_EDGES), once the filter has
 * settled, need not be above all the echo the answer could bring to go their own way: there the
 * user's consonants ("s", "t" of "stop") are often quieter than that bound, and a short command is
 * not heard without them; an answer's sound a settled filter has not learnt yet leaks there for a
 * few blocks at most, with no voicing to set off the VAD. (Unsettled, in an answer's first second
 * and a half, it leaks for longer.)
 */
const FRICATIVE_BANDS = 3;

/** The gain that leaves a power `p` of which `left` is estimated to be echo. */
function gainFor(p: number, left: number): number {
  return p > 0 ? Math.max(FLOOR, Math.min(1, 1 - left / p)) : 1;
}

/** How far the linear filter has come: see EchoSuppressor.process. */
export type FilterStage = 'no-echo' | 'settling' | 'settled';

export class EchoSuppressor {
  /** The share of the echo estimate's power the linear filter leaves behind, */
  private leak = START_LEAK;
  /** that share averaged over the last few blocks. */
  private ratio = START_LEAK;
  /** Per band: the gain applied at the end of the last block. */
  private readonly gain: Float64Array;
  /** Per band: the residual estimated in the current block. */
  private readonly left: Float64Array;

  constructor(readonly bands: number) {
    this.gain = new Float64Array(bands).fill(1);
    this.left = new Float64Array(bands);
  }

  /** Starts over (a new echo path). */
  reset(): void {
    this.leak = this.ratio = START_LEAK;
    this.gain.fill(1);
  }

  /**
   * One block. `residual[k]`: band k of the linear filter's output; `pe[k]`, `py[k]`: the energies
   * of band k of that output and of the filter's echo estimate over the block; `coarse[k]`: band k's
   * residual power (per sample) as judged from the reference alone; `bound[k]`: the most echo the
   * reference could bring to band k with nothing cancelled (per sample); `learnt`: the share of the
   * output the background filter had already learnt to cancel (see MOSTLY_LEARNT); `filter`: how far
   * the filter has come, 'settled' when it has converged and heard enough of the answer, 'settling'
   * before that, 'no-echo' while no echo path has been found at all (headphones; see
   * FRICATIVE_BANDS, MOSTLY_LEARNT_UNSETTLED). Writes the suppressed block, the bands added back up,
   * into `out` from `offset`.
   */
  process(residual: Float64Array[], pe: Float64Array, py: Float64Array, coarse: Float64Array, bound: Float64Array, learnt: number, filter: FilterStage, out: Float32Array, offset: number): void {
    const n = residual[0]!.length;
    let peAll = 0;
    let pyAll = 0;
    for (let k = 0; k < this.bands; k++) {
      peAll += pe[k]!;
      pyAll += py[k]!;
    }
    // The leak is judged over the whole block: per band it is too noisy a ratio, and tracking its
    // lowest values would trust the filter more than it deserves.
    if (pyAll > 1e-9 * n) {
      // Averaged over a few blocks first: one lucky block must not make the suppressor trust the filter.
      this.ratio += 0.2 * (Math.min(1, peAll / pyAll) - this.ratio);
      this.leak = Math.max(MIN_LEAK, Math.min(this.leak * RISE, this.ratio));
    }
    // The whole block's gain, as if it were one band: what holds the echo down.
    let leftAll = 0;
    const left = this.left;
    for (let k = 0; k < this.bands; k++) {
      left[k] = Math.max(OVER * this.leak * py[k]!, OVER_COARSE * coarse[k]! * n);
      leftAll += left[k]!;
    }
    // The filter failing outright (its output as loud as its estimate: a sound the answer just began
    // to make, a path that moved) while the whole block is quieter than the echo the answer could
    // bring, and not plainly above the residual expected: nothing says the user is there, and taking the
    // answer for them is the worse mistake. (A user's first sound over the answer is plainly above.)
    let boundAll = 0;
    for (let k = 0; k < this.bands; k++) boundAll += bound[k]!;
    const failing = peAll > FAILING * pyAll && peAll <= FAILING_BOUND * boundAll * n && peAll <= CLEAR * leftAll;
    const settled = filter === 'settled';
    const whole = failing || learnt >= (filter === 'settling' ? MOSTLY_LEARNT_UNSETTLED : MOSTLY_LEARNT) ? FLOOR : gainFor(peAll, leftAll);
    for (let i = 0; i < n; i++) out[offset + i] = 0;
    for (let k = 0; k < this.bands; k++) {
      // A band goes its own way only where the user's voice plainly dominates it (a "s" over the
      // answer's vowels): elsewhere the bands' overlap would let through echo the whole block's gain
      // holds down. Plainly: above its residual estimate, and above all the echo the answer could
      // bring there (the filter may not have learnt a sound the answer just began to make), but
      // see FRICATIVE_BANDS.
      const own = pe[k]! > CLEAR * left[k]! && ((settled && k >= FRICATIVE_BANDS) || pe[k]! > bound[k]! * n) ? gainFor(pe[k]!, left[k]!) : 0;
      const target = Math.max(whole, own);
      // Down at once (echo must not slip through while the gain falls), up across the block.
      const from = Math.min(this.gain[k]!, target);
      const band = residual[k]!;
      for (let i = 0; i < n; i++) out[offset + i]! += band[i]! * (from + ((target - from) * (i + 1)) / n);
      this.gain[k] = target;
    }
  }
}
