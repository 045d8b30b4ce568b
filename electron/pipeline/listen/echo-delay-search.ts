import { RealFft } from '../../audio/fft';

/**
 * The coarse search for the echo's delay: the lag at which the (decimated) reference best matches
 * the (decimated) microphone, by normalized cross-correlation. The correlation at every lag comes
 * from one FFT product (O(n log n)) instead of one dot product per lag: searched at each of an
 * answer's first windows and then every few, it was the echo canceller's single largest cost.
 */
export class DelaySearch {
  private readonly fft: RealFft;
  private readonly a: Float64Array;
  private readonly b: Float64Array;
  private readonly ar: Float64Array;
  private readonly ai: Float64Array;
  private readonly br: Float64Array;
  private readonly bi: Float64Array;
  private readonly corr: Float64Array;
  /** Running sums of the reference's energy, for each lag's reference energy in O(1). */
  private readonly sums: Float64Array;

  /** For up to `maxSamples` of microphone and lags 0..`maxLag`. */
  constructor(maxSamples: number, maxLag: number) {
    let size = 4;
    while (size < maxSamples + maxLag) size *= 2;
    this.fft = new RealFft(size);
    this.a = new Float64Array(size);
    this.b = new Float64Array(size);
    this.ar = new Float64Array(this.fft.bins);
    this.ai = new Float64Array(this.fft.bins);
    this.br = new Float64Array(this.fft.bins);
    this.bi = new Float64Array(this.fft.bins);
    this.corr = new Float64Array(size);
    this.sums = new Float64Array(size + 1);
  }

  /**
   * The lag d in [0, maxLag] maximizing the NCC of `mic` with `ref[offset - d ..]` (lags whose
   * reference energy is at most `silent` skipped), or best -1 when none is positive.
   * `offset - maxLag` must be at least 0 and `offset + mic.length` at most `ref.length`.
   */
  best(mic: ArrayLike<number>, micEnergy: number, ref: ArrayLike<number>, offset: number, maxLag: number, silent: number): { lag: number; ncc: number } {
    const n = mic.length;
    const span = n + maxLag;
    if (span > this.fft.size || offset < maxLag) throw new RangeError('DelaySearch: span outside what it was made for');
    const { a, b, ar, ai, br, bi, corr, sums } = this;
    a.fill(0);
    b.fill(0);
    for (let i = 0; i < n; i++) a[i] = mic[i]!;
    // b[j] = ref[offset - maxLag + j]: lag d reads b from maxLag - d on.
    const start = offset - maxLag;
    sums[0] = 0;
    for (let j = 0; j < span; j++) {
      const r = ref[start + j]!;
      b[j] = r;
      sums[j + 1] = sums[j]! + r * r;
    }
    this.fft.forward(a, ar, ai);
    this.fft.forward(b, br, bi);
    // conj(A)·B: its inverse at l is the sum over i of a[i]·b[i + l] (no wrap: span fits the size).
    for (let k = 0; k < ar.length; k++) {
      const re = ar[k]! * br[k]! + ai[k]! * bi[k]!;
      const im = ar[k]! * bi[k]! - ai[k]! * br[k]!;
      br[k] = re;
      bi[k] = im;
    }
    this.fft.inverse(br, bi, corr);
    let lag = -1;
    let best = 0;
    for (let d = 0; d <= maxLag; d++) {
      const l = maxLag - d;
      const rr = sums[l + n]! - sums[l]!;
      if (rr <= silent) continue;
      const ncc = corr[l]! / Math.sqrt(rr * micEnergy);
      if (ncc > best) {
        best = ncc;
        lag = d;
      }
    }
    return { lag, ncc: best };
  }
}
