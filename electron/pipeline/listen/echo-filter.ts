import { RealFft } from '../../audio/fft';

/**
 * The loudspeaker-to-microphone path as a long adaptive filter: a partitioned-block frequency-domain
 * adaptive filter (overlap-save, NLMS step normalized per frequency bin) whose taps cover the room's
 * reverberation tail, not only the direct sound.
 *
 * Double talk: it keeps two filters. The background one always adapts; the foreground one, which
 * makes the output, only takes the background's weights when they have cancelled clearly better for
 * a few blocks running. When the user talks over the answer, the background is pushed off course by
 * their voice and cancels worse than the foreground: it is set back to the foreground, which never
 * learnt from the user. (The two-path idea is from the echo-cancellation literature; Speex's MDF
 * uses it too.)
 */
export interface EchoFilterOptions {
  /** Samples per block (a power of two); the FFT is twice as long. */
  block: number;
  /** Taps, in blocks: the echo tail covered is `partitions × block` samples. */
  partitions: number;
  /** NLMS step size (0-1], default 1: the two-path guard makes a fast background safe. */
  step?: number;
}

/** Blocks the background must beat the foreground in a row before it is copied over. */
const BETTER_BLOCKS = 2;
/** The background counts as better below this share of the foreground's error energy. */
const BETTER_RATIO = 0.7;
/**
 * The same while the error looks like the user talking (near end): only a background that plainly
 * explains it is taken. The user's voice cannot be learnt from the reference, but a sound the
 * answer just began to make can: left to the slowed background, such a sound passed for 100 ms and
 * more and set off the VAD (kitchen, 1.5 s into an answer).
 */
const NEAR_END_BETTER_RATIO = 0.3;
/** The background has gone off course above this multiple of the foreground's error energy. */
const DIVERGED_RATIO = 2;
/** A block predicted below this share of the microphone's energy shows an echo path, */
const ECHO_FOUND_RATIO = 0.5;
/**
 * and one that may be the user's voice (speech is being heard) only below this share (-10 dB):
 * voiced speech repeats itself from block to block, so the background, adapting on it, predicts
 * part of the next block from the reference by chance. Over headphones, with no echo at all, a
 * block 1.3 s into the user's speech over an answer came out 3 dB quieter; taken for an echo path,
 * it had the suppressor hold most of the rest of their words 40 dB down.
 */
const HEARD_ECHO_FOUND_RATIO = 0.1;
/** How fast the residual share may rise per block (about 5 dB a second). */
const LEAK_RISE = 1.02;
/** Below this residual share (10 dB cancelled) the filter counts as converged. */
const CONVERGED_LEAK = 0.1;
/** Error this many times what the converged filter leaves means the user is talking. */
const NEAR_END_RATIO = 8;
/** The background's step while the user talks: it still follows a changing path, slowly. */
const NEAR_END_STEP = 0.1;
/** How much of each block's residual share enters its running average. */
const RATIO_SMOOTHING = 0.2;
/** About 4 s of the user talking over the answer without a pause. */
const MAX_NEAR_END_BLOCKS = 250;
/**
 * Partitions whose gradient constraint is applied per block, in turn (see adaptBackground). One a
 * block left a 600 ms filter unconstrained for 38 blocks at a time, and the wrap-around it gathered
 * meanwhile held its cancelling 3-5 dB short of what four a block reach (living room and kitchen,
 * 5 s into an answer); each one more costs two FFTs.
 */
const CONSTRAINED_PER_BLOCK = 4;
/**
 * Each bin's step is normalized by its reference power plus this share of the mean bin's: bins the
 * answer hardly fills must not take huge steps. An answer's 4-8 kHz bins (its "s" and "f") hold a
 * median 14-18 dB less power than its mean bin over the filter's span, a tenth of them 28-32 dB
 * less; at 1 % those steps were from two thirds down to a tenth of full, and a fricative the answer
 * began to make leaked for 60-80 ms and set off the VAD (small room, gain 1, 0.8-3 s into answers).
 */
const STEP_FLOOR = 0.001;

export class EchoFilter {
  readonly block: number;
  readonly partitions: number;
  private readonly fft: RealFft;
  private readonly bins: number;
  private readonly step: number;
  /**
   * Spectra of the last `partitions` reference blocks (newest at `head`), each over two blocks of
   * samples. Spectra here are complex-interleaved (re, im, re, im, ...): the filter's loops then read
   * three arrays instead of six, which made them about 1.7 times faster.
   */
  private readonly x: Float64Array[];
  /** Their powers per bin, |X|², kept beside them: every block's step normalization sums them. */
  private readonly xp: Float64Array[];
  private head = 0;
  /** The foreground's and the background's weights per partition (interleaved). */
  private readonly fg: Float64Array[];
  private readonly bg: Float64Array[];
  /** The previous reference block: each FFT covers it and the new one. */
  private readonly lastRef: Float64Array;
  private readonly frame: Float64Array;
  /** One spectrum as the FFT takes it (separate real and imaginary parts). */
  private readonly spectrumR: Float64Array;
  private readonly spectrumI: Float64Array;
  /** The foreground's and the background's echo spectra, made in one pass; then the error spectrum (interleaved). */
  private readonly fgSpectrum: Float64Array;
  private readonly bgSpectrum: Float64Array;
  private readonly time: Float64Array;
  private readonly bgTime: Float64Array;
  /** Each partition's weight magnitude (root of its energy), kept up to date as the weights change. */
  private readonly fgMagnitude: Float64Array;
  private readonly bgMagnitude: Float64Array;
  /** Each partition's share of the step (mean 1), and the per-bin power the step is normalized by. */
  private readonly shares: Float64Array;
  private readonly norm: Float64Array;
  private better = 0;
  /** The residual's share of the echo estimate's power, tracked from below. */
  private leak = 1;
  /** The residual's share, averaged over the last few blocks. */
  private ratio = 1;
  private nearEndBlocks = 0;
  /** A block was predicted at least 3 dB quieter than the microphone: there is an echo path at all. */
  echoFound = false;
  /** The last block had the user talking over the echo (as far as the filter can tell). */
  nearEnd = false;
  /**
   * The share of the last block's output that the background filter had already learnt to cancel
   * (0-1): echo for certain, since the user's voice cannot be learnt from the reference. It is large
   * where the answer makes a sound the foreground has not taken up yet.
   */
  learnt = 0;
  /** Partition whose gradient constraint is applied next (CONSTRAINED_PER_BLOCK a block, in turn). */
  private constrainNext = 0;
  /** The foreground's echo estimate for the last block. */
  readonly echo: Float64Array;

  constructor(opts: EchoFilterOptions) {
    this.block = opts.block;
    this.partitions = opts.partitions;
    this.step = opts.step ?? 1;
    this.fft = new RealFft(2 * opts.block);
    this.bins = this.fft.bins;
    const spectra = (values: number) => Array.from({ length: opts.partitions }, () => new Float64Array(values));
    this.x = spectra(2 * this.bins);
    this.xp = spectra(this.bins);
    this.fg = spectra(2 * this.bins);
    this.bg = spectra(2 * this.bins);
    this.lastRef = new Float64Array(opts.block);
    this.frame = new Float64Array(2 * opts.block);
    this.spectrumR = new Float64Array(this.bins);
    this.spectrumI = new Float64Array(this.bins);
    this.fgSpectrum = new Float64Array(2 * this.bins);
    this.bgSpectrum = new Float64Array(2 * this.bins);
    this.time = new Float64Array(2 * opts.block);
    this.bgTime = new Float64Array(2 * opts.block);
    this.fgMagnitude = new Float64Array(opts.partitions);
    this.bgMagnitude = new Float64Array(opts.partitions);
    this.echo = new Float64Array(opts.block);
    this.shares = new Float64Array(opts.partitions);
    this.norm = new Float64Array(this.bins);
  }

  /** The share of its echo estimate's power the filter leaves behind (1 while it has learnt nothing). */
  get residualShare(): number {
    return this.leak;
  }

  /** Forgets the path (a new alignment, a reset). */
  reset(): void {
    for (const a of [this.x, this.xp, this.fg, this.bg]) for (const s of a) s.fill(0);
    this.fgMagnitude.fill(0);
    this.bgMagnitude.fill(0);
    this.lastRef.fill(0);
    this.better = 0;
    this.leak = this.ratio = 1;
    this.nearEnd = false;
    this.nearEndBlocks = 0;
  }

  /** Starts both filters from a single path: `gain` at `delay` samples (the fast path's estimate). */
  seed(delay: number, gain: number): void {
    const p = Math.floor(delay / this.block);
    if (p >= this.partitions) return;
    const t = delay - p * this.block;
    this.frame.fill(0);
    this.frame[t] = gain;
    this.forward(this.frame, this.bg[p]!);
    this.fg[p]!.set(this.bg[p]!);
    this.fgMagnitude[p] = this.bgMagnitude[p] = magnitude(this.bg[p]!);
  }

  /**
   * One block: `mic` and the reference `ref` over the same span (`block` samples each). Writes the
   * microphone with the echo estimate removed into `out`; `echo` holds the estimate. `heard`: speech
   * is being heard in the microphone (it may be the user's: see HEARD_ECHO_FOUND_RATIO). `echoBound`:
   * the most echo energy the answer could bring to the block, nothing cancelled (0: not known).
   */
  process(mic: ArrayLike<number>, ref: ArrayLike<number>, out: Float64Array, heard = false, echoBound = 0): void {
    const B = this.block;
    const P = this.partitions;
    // The newest reference spectrum takes the oldest slot.
    this.head = (this.head + P - 1) % P;
    const x = this.x[this.head]!;
    this.frame.set(this.lastRef);
    for (let i = 0; i < B; i++) this.frame[B + i] = ref[i]!;
    for (let i = 0; i < B; i++) this.lastRef[i] = ref[i]!;
    this.forward(this.frame, x);
    const xp = this.xp[this.head]!;
    for (let k = 0; k < this.bins; k++) xp[k] = x[2 * k]! * x[2 * k]! + x[2 * k + 1]! * x[2 * k + 1]!;

    // Both filters' echo estimates in one pass over the reference spectra.
    this.estimate();
    const bgOut = this.frame;
    const fgError = this.errorOf(this.time, mic, out);
    const bgError = this.errorOf(this.bgTime, mic, bgOut);
    this.echo.set(this.time.subarray(B));
    this.learnt = fgError > 1e-9 * B ? Math.max(0, 1 - bgError / fgError) : 0;
    let fgEcho = 0;
    for (let i = 0; i < B; i++) fgEcho += this.echo[i]! * this.echo[i]!;
    // The residual's lowest share of the echo estimate lately: down at once, up slowly (as the suppressor's).
    if (fgEcho > 1e-9 * B) {
      // Smoothed over a few blocks first: one lucky block must not set how well the filter cancels.
      this.ratio += RATIO_SMOOTHING * (Math.min(1, fgError / fgEcho) - this.ratio);
      this.leak = Math.max(1e-4, Math.min(this.leak * LEAK_RISE, this.ratio));
    }
    let micEnergy = 0;
    for (let i = 0; i < B; i++) micEnergy += mic[i]! * mic[i]!;
    // Once the filter cancels well, far more error than it leaves is the user talking over the answer,
    // if the microphone holds more than the answer's echo could bring: quieter than that, it is as
    // likely a sound the answer just began to make, which the background must learn at full step.
    // (Slowed on such a sound, a fricative leaked for 60-80 ms and set off the VAD: small room, gain 1.)
    this.nearEnd = this.leak < CONVERGED_LEAK && fgError > NEAR_END_RATIO * this.leak * fgEcho + 1e-9 * B && micEnergy > echoBound;
    // Long "double talk" is more likely a changed path than a user talking that long: start learning again.
    this.nearEndBlocks = this.nearEnd ? this.nearEndBlocks + 1 : 0;
    if (this.nearEndBlocks > MAX_NEAR_END_BLOCKS) {
      this.leak = this.ratio = 1;
      this.nearEnd = false;
      this.nearEndBlocks = 0;
    }
    // Predicted before adapting on it: a block this much quieter shows an echo path (see the two ratios).
    if (micEnergy > 1e-7 * B && Math.min(fgError, bgError) < (heard ? HEARD_ECHO_FOUND_RATIO : ECHO_FOUND_RATIO) * micEnergy) this.echoFound = true;
    // Nothing new played in this block: what the microphone holds beyond the modelled tail can only
    // be the user, so nothing is learnt from it (nor copied: see below).
    let refEnergy = 0;
    for (let i = 0; i < B; i++) refEnergy += ref[i]! * ref[i]!;
    const playing = refEnergy > 1e-7 * B;
    if (playing) this.adaptBackground(bgOut, this.nearEnd ? NEAR_END_STEP : 1);

    // The two-path decision: which filter's weights stand. During what looks like double talk, only
    // a background that cancels far better (see NEAR_END_BETTER_RATIO).
    if (playing && bgError < (this.nearEnd ? NEAR_END_BETTER_RATIO : BETTER_RATIO) * fgError) {
      this.better++;
      if (this.better >= BETTER_BLOCKS) {
        this.copy(this.bg, this.fg);
        this.better = 0;
      }
    } else {
      this.better = 0;
      if (bgError > DIVERGED_RATIO * fgError + 1e-9) this.copy(this.fg, this.bg);
    }
  }

  /** Both filters' echo estimates for this block, in the time domain: into `time` and `bgTime`. */
  private estimate(): void {
    const P = this.partitions;
    const n = 2 * this.bins;
    const f = this.fgSpectrum;
    const b = this.bgSpectrum;
    f.fill(0);
    b.fill(0);
    for (let p = 0; p < P; p++) {
      const x = this.x[(this.head + p) % P]!;
      const w = this.fg[p]!;
      const v = this.bg[p]!;
      for (let j = 0; j < n; j += 2) {
        const xr = x[j]!;
        const xi = x[j + 1]!;
        const wr = w[j]!;
        const wi = w[j + 1]!;
        const vr = v[j]!;
        const vi = v[j + 1]!;
        f[j]! += xr * wr - xi * wi;
        f[j + 1]! += xr * wi + xi * wr;
        b[j]! += xr * vr - xi * vi;
        b[j + 1]! += xr * vi + xi * vr;
      }
    }
    this.inverse(f, this.time);
    this.inverse(b, this.bgTime);
  }

  /** The spectrum of `samples` (two blocks), interleaved into `into`. */
  private forward(samples: Float64Array, into: Float64Array): void {
    const re = this.spectrumR;
    const im = this.spectrumI;
    this.fft.forward(samples, re, im);
    for (let k = 0; k < this.bins; k++) {
      into[2 * k] = re[k]!;
      into[2 * k + 1] = im[k]!;
    }
  }

  /** The two blocks of samples whose (interleaved) spectrum is `spectrum`, into `out`. */
  private inverse(spectrum: Float64Array, out: Float64Array): void {
    const re = this.spectrumR;
    const im = this.spectrumI;
    for (let k = 0; k < this.bins; k++) {
      re[k] = spectrum[2 * k]!;
      im[k] = spectrum[2 * k + 1]!;
    }
    this.fft.inverse(re, im, out);
  }

  /** The microphone less an echo estimate (`time`'s second half) into `out[0..B)`; returns its energy. */
  private errorOf(time: Float64Array, mic: ArrayLike<number>, out: Float64Array): number {
    const B = this.block;
    let energy = 0;
    for (let i = 0; i < B; i++) {
      const e = mic[i]! - time[B + i]!;
      out[i] = e;
      energy += e * e;
    }
    return energy;
  }

  /** NLMS step of the background filter on its error `e[0..B)`. */
  private adaptBackground(e: Float64Array, scale: number): void {
    const B = this.block;
    const P = this.partitions;
    const bins = this.bins;
    // The error spectrum over [zeros, error]: overlap-save's gradient window.
    const t = this.time;
    t.fill(0, 0, B);
    for (let i = 0; i < B; i++) t[B + i] = e[i]!;
    const err = this.fgSpectrum;
    this.forward(t, err);
    // Proportionate steps: partitions holding more of the path (the direct sound, the early
    // reflections) take larger steps than the quiet end of the tail, half of it spread evenly.
    // A room's response decays, so this converges far faster than equal steps (IPNLMS's idea).
    const shares = this.shares;
    const magnitudes = this.bgMagnitude;
    let total = 0;
    for (let p = 0; p < P; p++) total += magnitudes[p]!;
    for (let p = 0; p < P; p++) shares[p] = 0.5 + (total > 0 ? (0.5 * P * magnitudes[p]!) / total : 0.5);
    // Per bin, the reference power the step is normalized by, weighted as the steps are.
    const norm = this.norm;
    norm.fill(0);
    let mean = 0;
    for (let p = 0; p < P; p++) {
      const xp = this.xp[(this.head + p) % P]!;
      const a = shares[p]!;
      for (let k = 0; k < bins; k++) norm[k]! += a * xp[k]!;
    }
    for (let k = 0; k < bins; k++) mean += norm[k]!;
    // Regularized: bins with almost no reference energy must not take huge steps.
    const floor = STEP_FLOOR * (mean / bins) + 1e-10;
    for (let k = 0; k < bins; k++) {
      const g = (scale * this.step) / (norm[k]! + floor);
      err[2 * k]! *= g;
      err[2 * k + 1]! *= g;
    }
    const n = 2 * bins;
    for (let p = 0; p < P; p++) {
      const x = this.x[(this.head + p) % P]!;
      const w = this.bg[p]!;
      const a = shares[p]!;
      // W += a · conj(X) · E, and the partition's new energy for the next block's shares.
      let energy = 0;
      for (let j = 0; j < n; j += 2) {
        const xr = x[j]!;
        const xi = x[j + 1]!;
        const er = err[j]!;
        const ei = err[j + 1]!;
        const r = w[j]! + a * (xr * er + xi * ei);
        const i = w[j + 1]! + a * (xr * ei - xi * er);
        w[j] = r;
        w[j + 1] = i;
        energy += r * r + i * i;
      }
      magnitudes[p] = Math.sqrt(energy);
    }
    // The gradient constraint (taps past one block are circular wrap-around), a few partitions a block.
    for (let c = 0; c < Math.min(CONSTRAINED_PER_BLOCK, P); c++) {
      const p = this.constrainNext;
      this.constrainNext = (p + 1) % P;
      this.inverse(this.bg[p]!, t);
      t.fill(0, B);
      this.forward(t, this.bg[p]!);
      magnitudes[p] = magnitude(this.bg[p]!);
    }
  }

  private copy(from: Float64Array[], to: Float64Array[]): void {
    for (let p = 0; p < this.partitions; p++) to[p]!.set(from[p]!);
    if (to === this.fg) this.fgMagnitude.set(this.bgMagnitude);
    else this.bgMagnitude.set(this.fgMagnitude);
  }
}

/** The root of an (interleaved) spectrum's energy. */
function magnitude(spectrum: Float64Array): number {
  let energy = 0;
  for (let j = 0; j < spectrum.length; j += 2) energy += spectrum[j]! * spectrum[j]! + spectrum[j + 1]! * spectrum[j + 1]!;
  return Math.sqrt(energy);
}
