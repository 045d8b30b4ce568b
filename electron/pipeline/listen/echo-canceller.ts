/**
 * Removes the assistant's own voice from the microphone signal. The pipeline knows exactly what the
 * speaker played (the reference), so the echo is that reference, delayed and scaled by the room:
 * the canceller finds the delay by cross-correlation, the gain by least squares while the echo
 * dominates, and subtracts it. What is left (the user) goes on to the VAD and the recognizer.
 *
 * This is a single-path linear model: it handles the direct speaker-to-microphone path that makes
 * an assistant interrupt itself. In the app the browser's echo cancellation runs first and handles
 * room reverberation; this stage catches what leaks through, and all of `talk --echo`.
 */
export interface EchoCancellerOptions {
  sampleRate: number;
  /** Longest speaker-to-microphone delay searched for. */
  maxDelayMs: number;
  /** Audio compared when estimating the echo path. */
  analysisMs: number;
}

const DECIMATE = 4;
/** Correlation above which the input is taken to be mostly echo (the gain may be learnt from it). */
const LOCK_NCC = 0.6;
/** Correlation above which the input is echo alone, so the gain may be refined (not while the user talks). */
const ADAPT_NCC = 0.9;
/** Re-check the echo path every this many windows once locked. */
const RECHECK_EVERY = 8;
const SILENT = 1e-7;

export class EchoCanceller {
  private readonly mic: Float32Array;
  private readonly ref: Float32Array;
  private readonly maxDelay: number;
  private readonly analysis: number;
  private delay: number | null = null;
  private gain = 0;
  private windows = 0;
  /** Samples since the reference last had signal (the echo can outlast it by maxDelay). */
  private refQuiet = Infinity;

  constructor(opts: EchoCancellerOptions) {
    this.maxDelay = Math.round((opts.maxDelayMs / 1000) * opts.sampleRate);
    this.analysis = Math.round((opts.analysisMs / 1000) * opts.sampleRate);
    const size = this.maxDelay + this.analysis;
    this.mic = new Float32Array(size);
    this.ref = new Float32Array(size);
  }

  /** The estimated echo path, or null before one was found. */
  get path(): { delaySamples: number; gain: number } | null {
    return this.delay === null ? null : { delaySamples: this.delay, gain: this.gain };
  }

  /**
   * One window of microphone input and what the speaker played over the same span (null: nothing).
   * Returns the input with the echo removed (the same array when there was nothing to remove).
   */
  process(mic: Float32Array, ref: Float32Array | null): Float32Array {
    const n = mic.length;
    shiftIn(this.mic, mic);
    shiftIn(this.ref, ref ?? new Float32Array(n));
    this.refQuiet = ref && energy(ref, 0, n) > SILENT * n ? 0 : this.refQuiet + n;
    if (this.refQuiet > this.maxDelay + n) return mic;
    this.windows++;
    if (this.delay === null || this.windows % RECHECK_EVERY === 0) this.estimatePath();
    if (this.delay === null) return mic;

    const len = this.mic.length;
    const d = this.delay;
    const { mr, rr, mm } = this.fit(d, n);
    // Normalised correlation of the input with the delayed reference over this window.
    const ncc = rr > SILENT * n && mm > 0 ? mr / Math.sqrt(rr * mm) : 0;
    // Learn the gain only where the input is mostly echo; while the user talks over it, hold it.
    if (ncc >= ADAPT_NCC && rr > SILENT * n) this.gain += 0.5 * (mr / rr - this.gain);
    // Far less input than the model predicts: there is less echo than assumed (or none at all).
    else if (mm < 0.01 * this.gain * this.gain * rr) this.gain *= 0.5;

    const out = new Float32Array(n);
    let oo = 0;
    for (let i = 0; i < n; i++) {
      out[i] = mic[i]! - this.gain * this.ref[len - n + i - d]!;
      oo += out[i]! * out[i]!;
    }
    // Removing echo can only make the input quieter; if it would not, the model is wrong here.
    if (oo > mm) {
      this.gain *= 0.5;
      return mic;
    }
    return out;
  }

  /** Finds the delay at which the reference best matches the input: coarse on a decimated signal, then exact. */
  private estimatePath(): void {
    const len = this.mic.length;
    const a = this.analysis;
    const micD = decimate(this.mic, len - a, a);
    const refD = decimate(this.ref, 0, len);
    const aD = micD.length;
    const maxD = Math.floor(this.maxDelay / DECIMATE);
    const micEnergy = energy(micD, 0, aD);
    if (micEnergy <= SILENT * aD) return;
    let best = -1;
    let bestNcc = 0;
    const offset = refD.length - aD;
    for (let d = 0; d <= maxD; d++) {
      let mr = 0;
      let rr = 0;
      for (let i = 0; i < aD; i++) {
        const r = refD[offset + i - d]!;
        mr += micD[i]! * r;
        rr += r * r;
      }
      if (rr <= SILENT * aD) continue;
      const ncc = mr / Math.sqrt(rr * micEnergy);
      if (ncc > bestNcc) {
        bestNcc = ncc;
        best = d;
      }
    }
    if (best < 0 || bestNcc < LOCK_NCC * 0.8) return;
    // Refine at the full rate around the coarse peak.
    let fine = best * DECIMATE;
    let fineNcc = -Infinity;
    for (let d = Math.max(0, best * DECIMATE - DECIMATE); d <= Math.min(this.maxDelay, best * DECIMATE + DECIMATE); d++) {
      const { mr, rr, mm } = this.fit(d, a);
      const ncc = rr > 0 && mm > 0 ? mr / Math.sqrt(rr * mm) : 0;
      if (ncc > fineNcc) {
        fineNcc = ncc;
        fine = d;
      }
    }
    if (fineNcc < LOCK_NCC) return;
    if (fine !== this.delay) {
      this.delay = fine;
      // A new path: start the gain from the least-squares fit over the analysis span.
      const { mr, rr } = this.fit(fine, a);
      this.gain = rr > 0 ? Math.max(0, mr / rr) : 0;
    }
  }

  /** Cross and self energies of the last `n` input samples and the reference delayed by `d`. */
  private fit(d: number, n: number): { mr: number; rr: number; mm: number } {
    const len = this.mic.length;
    let mr = 0;
    let rr = 0;
    let mm = 0;
    for (let i = len - n; i < len; i++) {
      const r = this.ref[i - d]!;
      const m = this.mic[i]!;
      mr += m * r;
      rr += r * r;
      mm += m * m;
    }
    return { mr, rr, mm };
  }

}

function shiftIn(buf: Float32Array, x: Float32Array): void {
  buf.copyWithin(0, x.length);
  buf.set(x, buf.length - x.length);
}

function energy(x: Float32Array, from: number, n: number): number {
  let e = 0;
  for (let i = from; i < from + n; i++) e += x[i]! * x[i]!;
  return e;
}

/** Box-filtered and decimated by DECIMATE: enough to find the correlation peak cheaply. */
function decimate(x: Float32Array, from: number, n: number): Float32Array {
  const out = new Float32Array(Math.floor(n / DECIMATE));
  for (let k = 0; k < out.length; k++) {
    let s = 0;
    for (let j = 0; j < DECIMATE; j++) s += x[from + k * DECIMATE + j]!;
    out[k] = s / DECIMATE;
  }
  return out;
}
