/**
 * A real-input FFT of one power-of-two size: `size` real samples to `size / 2 + 1` complex bins and
 * back. It runs one complex FFT of half the size on the samples packed in pairs, then splits the
 * result, which halves the work of a plain complex FFT. Tables are made once; nothing is allocated
 * per call (the echo canceller runs several of these every 16 ms).
 */
export class RealFft {
  readonly size: number;
  readonly bins: number;
  private readonly half: number;
  private readonly rev: Uint32Array;
  /** Twiddles of the half-size complex FFT, e^{-2πik/half}. */
  private readonly cr: Float64Array;
  private readonly ci: Float64Array;
  /** Twiddles of the split, e^{-2πik/size}. */
  private readonly wr: Float64Array;
  private readonly wi: Float64Array;
  private readonly zr: Float64Array;
  private readonly zi: Float64Array;

  constructor(size: number) {
    if (!Number.isInteger(size) || size < 4 || (size & (size - 1)) !== 0) throw new RangeError(`FFT size must be a power of two of at least 4, got ${size}`);
    this.size = size;
    this.half = size / 2;
    this.bins = this.half + 1;
    const h = this.half;
    const bits = Math.log2(h);
    this.rev = new Uint32Array(h);
    for (let i = 0; i < h; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) r |= ((i >> b) & 1) << (bits - 1 - b);
      this.rev[i] = r;
    }
    this.cr = new Float64Array(h / 2);
    this.ci = new Float64Array(h / 2);
    for (let k = 0; k < h / 2; k++) {
      this.cr[k] = Math.cos((-2 * Math.PI * k) / h);
      this.ci[k] = Math.sin((-2 * Math.PI * k) / h);
    }
    this.wr = new Float64Array(h + 1);
    this.wi = new Float64Array(h + 1);
    for (let k = 0; k <= h; k++) {
      this.wr[k] = Math.cos((-2 * Math.PI * k) / size);
      this.wi[k] = Math.sin((-2 * Math.PI * k) / size);
    }
    this.zr = new Float64Array(h);
    this.zi = new Float64Array(h);
  }

  /** The spectrum of `x` (`size` samples) into `re`/`im` (`bins` values each). */
  forward(x: ArrayLike<number>, re: Float64Array, im: Float64Array): void {
    const h = this.half;
    const { zr, zi, wr, wi } = this;
    for (let n = 0; n < h; n++) {
      zr[n] = x[2 * n]!;
      zi[n] = x[2 * n + 1]!;
    }
    this.complex();
    for (let k = 0; k <= h; k++) {
      const a = k % h;
      const b = (h - k) % h;
      // Even and odd samples' spectra: (Z[k] ± conj(Z[h-k])) / 2, the odd one divided by i.
      const er = (zr[a]! + zr[b]!) / 2;
      const ei = (zi[a]! - zi[b]!) / 2;
      const or = (zi[a]! + zi[b]!) / 2;
      const oi = -(zr[a]! - zr[b]!) / 2;
      re[k] = er + wr[k]! * or - wi[k]! * oi;
      im[k] = ei + wr[k]! * oi + wi[k]! * or;
    }
  }

  /** The `size` real samples whose spectrum is `re`/`im`, into `out` (scaled: inverse(forward(x)) = x). */
  inverse(re: Float64Array, im: Float64Array, out: Float64Array): void {
    const h = this.half;
    const { zr, zi, wr, wi } = this;
    for (let k = 0; k < h; k++) {
      const b = h - k;
      // Even part (X[k] + conj(X[h-k])) / 2, odd part (X[k] - conj(X[h-k])) / (2 W^k).
      const er = (re[k]! + re[b]!) / 2;
      const ei = (im[k]! - im[b]!) / 2;
      const dr = (re[k]! - re[b]!) / 2;
      const di = (im[k]! + im[b]!) / 2;
      // Dividing by W^k multiplies by its conjugate (|W| = 1).
      const or = dr * wr[k]! + di * wi[k]!;
      const oi = di * wr[k]! - dr * wi[k]!;
      // Z = even + i·odd, inverse-transformed as the conjugate of a forward transform.
      zr[k] = er - oi;
      zi[k] = -(ei + or);
    }
    this.complex();
    const scale = 1 / h;
    for (let n = 0; n < h; n++) {
      out[2 * n] = zr[n]! * scale;
      out[2 * n + 1] = -zi[n]! * scale;
    }
  }

  /** In-place radix-2 FFT of zr/zi (decimation in time, forward sign). */
  private complex(): void {
    const h = this.half;
    const { zr, zi, rev, cr, ci } = this;
    for (let i = 0; i < h; i++) {
      const j = rev[i]!;
      if (j > i) {
        const tr = zr[i]!;
        zr[i] = zr[j]!;
        zr[j] = tr;
        const ti = zi[i]!;
        zi[i] = zi[j]!;
        zi[j] = ti;
      }
    }
    for (let len = 2; len <= h; len <<= 1) {
      const halfLen = len >> 1;
      const step = h / len;
      for (let start = 0; start < h; start += len) {
        for (let k = 0; k < halfLen; k++) {
          const tr = cr[k * step]!;
          const ti = ci[k * step]!;
          const a = start + k;
          const b = a + halfLen;
          const xr = zr[b]! * tr - zi[b]! * ti;
          const xi = zr[b]! * ti + zi[b]! * tr;
          zr[b] = zr[a]! - xr;
          zi[b] = zi[a]! - xi;
          zr[a] = zr[a]! + xr;
          zi[a] = zi[a]! + xi;
        }
      }
    }
  }
}
