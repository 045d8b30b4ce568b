/**
 * Mono downmix and sample-rate conversion.
 *
 * The resampler is a polyphase windowed-sinc (Kaiser) filter. Output sample k
 * sits exactly at time k / toRate (input position k * fromRate / toRate), and
 * the kernel is symmetric around that position, so there is no group delay:
 * speech keeps its timing whatever the rates. Samples before the start and
 * after the end of the signal count as zeros.
 */
import type { DecodedAudio } from './wav';

/** Sinc zero crossings on each side, counted at the lower of the two rates. */
const ZERO_CROSSINGS = 32;
/** Kaiser beta: about 80 dB stopband attenuation. */
const KAISER_BETA = 8;
/**
 * Cutoff as a fraction of the lower Nyquist rate. With 64 low-rate taps and
 * beta 8 the transition band is about 0.08 of the lower rate wide, so 0.92
 * puts the stopband edge right at the lower Nyquist frequency: 48k -> 16k is
 * flat to ~6.7 kHz and everything above 8 kHz is ~80 dB down.
 */
const ROLLOFF = 0.92;
/**
 * Most filter phases kept in the table. Exact rational ratios of common
 * rates need at most a few hundred (16000 -> 22050 needs 441); odd ratios
 * get their phase rounded to 1/4096 of an input sample, far below audibility.
 */
const MAX_PHASES = 4096;

/** Averages the channels into one. One channel: returns that same array (no copy). */
export function downmix(channels: Float32Array[]): Float32Array {
  if (channels.length === 0) return new Float32Array(0);
  const first = channels[0]!;
  if (channels.length === 1) return first;
  const n = first.length;
  for (const c of channels) {
    if (c.length !== n) throw new RangeError('downmix: channels differ in length');
  }
  const out = new Float32Array(n);
  const scale = 1 / channels.length;
  for (const c of channels) {
    for (let i = 0; i < n; i++) out[i]! += c[i]!;
  }
  for (let i = 0; i < n; i++) out[i]! *= scale;
  return out;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Modified Bessel function of the first kind, order 0 (power series). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  const q = (x * x) / 4;
  for (let k = 1; k < 200; k++) {
    term *= q / (k * k);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

function checkRate(name: string, r: number): void {
  if (!Number.isInteger(r) || r <= 0) {
    throw new RangeError(`resample: ${name} must be a positive integer, got ${r}`);
  }
}

/** Filter design shared by every resampler with the same pair of rates. */
interface Filter {
  up: number; // toRate / gcd: each output advances the input position by down / up
  down: number; // fromRate / gcd
  phases: number; // rows in table
  half: number; // H: taps reach H input samples each side
  taps: number; // 2H + 1
  table: Float64Array; // phases * taps, each row sums to 1
}

const filterCache = new Map<string, Filter>();

function designFilter(fromRate: number, toRate: number): Filter {
  const key = `${fromRate}:${toRate}`;
  const cached = filterCache.get(key);
  if (cached) return cached;

  const g = gcd(fromRate, toRate);
  const up = toRate / g;
  const down = fromRate / g;
  const ratio = Math.min(1, up / down); // lower rate / input rate
  const fc = 0.5 * ROLLOFF * ratio; // cutoff in cycles per input sample
  const halfWidth = ZERO_CROSSINGS / ratio; // window half-length in input samples
  const half = Math.ceil(halfWidth);
  const taps = 2 * half + 1;
  const phases = Math.min(up, MAX_PHASES);
  const table = new Float64Array(phases * taps);
  const i0Beta = besselI0(KAISER_BETA);

  for (let p = 0; p < phases; p++) {
    const frac = p / phases; // output position = i + frac
    let sum = 0;
    for (let t = 0; t < taps; t++) {
      // Tap t reads input i - half + t, which lies (frac + half - t) samples before the output.
      const tau = frac + half - t;
      const x = tau / halfWidth;
      let h = 0;
      if (Math.abs(x) < 1) {
        const arg = 2 * fc * tau;
        const sinc = arg === 0 ? 1 : Math.sin(Math.PI * arg) / (Math.PI * arg);
        h = 2 * fc * sinc * (besselI0(KAISER_BETA * Math.sqrt(1 - x * x)) / i0Beta);
      }
      table[p * taps + t] = h;
      sum += h;
    }
    // Exact unity DC gain on every phase, so a constant stays constant.
    for (let t = 0; t < taps; t++) table[p * taps + t]! /= sum;
  }

  const f: Filter = { up, down, phases, half, taps, table };
  filterCache.set(key, f);
  return f;
}

/**
 * Converts a stream chunk by chunk. Concatenating every push() output and
 * then flush() gives exactly what resample() gives for the whole signal
 * (resample() is implemented with this class).
 *
 * push() returns every output sample whose filter support is fully known;
 * output therefore lags input by about ZERO_CROSSINGS samples of the lower
 * rate (2 ms at 16 kHz). flush() ends the stream: it pads with zeros and
 * returns the rest, for a total of ceil(n * toRate / fromRate) samples.
 */
export class StreamingResampler {
  private readonly f: Filter | null; // null: rates are equal, pass through
  private buf: Float32Array;
  private len = 0; // valid samples in buf
  private off: number; // absolute input index of buf[0]
  private pos = 0; // absolute input index of the next output (integer part)
  private rem = 0; // fractional part of that position, in 1/up units
  private total = 0; // input samples pushed so far
  private flushed = false;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    checkRate('fromRate', fromRate);
    checkRate('toRate', toRate);
    this.f = fromRate === toRate ? null : designFilter(fromRate, toRate);
    const half = this.f?.half ?? 0;
    // Start with `half` zeros of history, standing for silence before the signal.
    this.buf = new Float32Array(Math.max(1024, 4 * half));
    this.len = half;
    this.off = -half;
  }

  push(chunk: Float32Array): Float32Array {
    if (this.flushed) throw new Error('StreamingResampler: push() after flush()');
    if (!this.f) return chunk.slice();
    this.append(chunk);
    this.total += chunk.length;
    // Right-most tap of the next output must already be in the buffer (one
    // spare sample because a rounded phase may move the output on by one).
    return this.run(this.off + this.len - 2 - this.f.half);
  }

  flush(): Float32Array {
    if (this.flushed) return new Float32Array(0);
    this.flushed = true;
    if (!this.f) return new Float32Array(0);
    // Silence after the end, enough for the last output's right taps.
    this.append(new Float32Array(this.f.half + 1));
    // Outputs whose time lies inside the signal: position < total.
    const out = this.run(this.total - 1);
    this.buf = new Float32Array(0);
    this.len = 0;
    return out;
  }

  private append(chunk: Float32Array): void {
    const need = this.len + chunk.length;
    if (need > this.buf.length) {
      const grown = new Float32Array(Math.max(need, this.buf.length * 2));
      grown.set(this.buf.subarray(0, this.len));
      this.buf = grown;
    }
    this.buf.set(chunk, this.len);
    this.len = need;
  }

  /** Emits outputs while their integer position is <= lastPos, then drops used input. */
  private run(lastPos: number): Float32Array {
    const f = this.f!;
    const { up, down, phases, half, taps, table } = f;
    const buf = this.buf;
    const stepInt = Math.floor(down / up);
    const stepRem = down % up;
    const count = lastPos < this.pos ? 0 : Math.floor(((lastPos - this.pos + 1) * up) / down) + 2;
    const out = new Float32Array(count);
    let n = 0;
    let pos = this.pos;
    let rem = this.rem;
    const off = this.off;
    while (pos <= lastPos) {
      let i = pos;
      let ph = rem;
      if (phases !== up) {
        // Rounded phase for odd ratios; rounding up to a whole sample moves on to i + 1.
        ph = Math.round((rem * phases) / up);
        if (ph === phases) {
          ph = 0;
          i++;
        }
      }
      const base = i - half - off;
      const row = ph * taps;
      let acc = 0;
      for (let t = 0; t < taps; t++) acc += buf[base + t]! * table[row + t]!;
      out[n++] = acc;
      pos += stepInt;
      rem += stepRem;
      if (rem >= up) {
        rem -= up;
        pos++;
      }
    }
    this.pos = pos;
    this.rem = rem;
    // Keep only what the next output can still read (its left-most tap is pos - half).
    const drop = Math.min(this.len, Math.max(0, pos - half - off));
    if (drop > 0) {
      buf.copyWithin(0, drop, this.len);
      this.len -= drop;
      this.off += drop;
    }
    return n === count ? out : out.slice(0, n);
  }
}

/**
 * Resamples a whole signal. Equal rates: returns a copy (never the input
 * array), so callers may always modify the result. Output length is
 * ceil(x.length * toRate / fromRate): every output time k / toRate that falls
 * inside the input's duration.
 */
export function resample(x: Float32Array, fromRate: number, toRate: number): Float32Array {
  const r = new StreamingResampler(fromRate, toRate);
  const a = r.push(x);
  const b = r.flush();
  if (b.length === 0) return a;
  const out = new Float32Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Decoded audio as 16 kHz mono, the format the speech engines take. Always a new array. */
export function toMono16k(a: DecodedAudio): Float32Array {
  return resample(downmix(a.channelData), a.sampleRate, 16000);
}
