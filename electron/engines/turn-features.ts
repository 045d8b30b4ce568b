/**
 * The input features of Smart Turn v3 (Whisper-style log-mel) for the last 8 s of a turn, in plain
 * TypeScript (no Node APIs) so it runs anywhere and costs only arithmetic. The steps, as published
 * for Smart Turn v3 (see ../shared/models/turn/README.md):
 *
 * 1. keep the last 8 s (128,000 samples at 16 kHz), or pad zeros at the front;
 * 2. normalise the waveform to zero mean and unit variance (÷ sqrt(variance + 1e-7));
 * 3. centred STFT: reflect padding of 200 at both ends, n_fft 400, hop 160, periodic Hann window;
 * 4. power spectrum |X|² of the 201 bins;
 * 5. 80-band Slaney mel filterbank, 0-8000 Hz, Slaney area normalisation (librosa's default);
 * 6. log10(max(mel, 1e-10)); drop the last of the 801 frames;
 * 7. clamp below at (overall max − 8), then (x + 4) / 4.
 *
 * Output: float32 [80][800], mel band major (value[band][frame] at band * 800 + frame).
 *
 * It runs on the main process's event loop, so it is written for speed: a self-sorting mixed-radix
 * FFT for 400 = 4·4·5·5 points, two real frames per complex FFT, the normalisation folded into the
 * window, tables built once, the filterbank applied sparsely, log10 by table, the frames in the
 * zeros before a short turn computed once, and buffers reused between calls (so one call at a time,
 * which JS's single thread guarantees). On the 2-core test machine: 4-6 ms for 8 s of audio, about
 * 1.3 ms for a 2.3 s turn. The arithmetic is in Float64 (only the log-mel values are stored as
 * float32 before the last step): the features match an independent float32 implementation to 7e-6.
 */

export const TURN_SAMPLE_RATE = 16000;
/** 8 s: Smart Turn looks at the last 8 s of the turn only. */
export const TURN_WINDOW_SAMPLES = 8 * TURN_SAMPLE_RATE;
export const TURN_MEL_BANDS = 80;
/** STFT frames kept (801 computed by a centred STFT of 8 s, the last dropped). */
export const TURN_FRAMES = 800;
/** Floats in one feature tensor (TURN_MEL_BANDS × TURN_FRAMES). */
export const TURN_FEATURES_LENGTH = TURN_MEL_BANDS * TURN_FRAMES;

const N_FFT = 400;
const HOP = 160;
const PAD = N_FFT / 2;
const BINS = N_FFT / 2 + 1;
const PADDED = TURN_WINDOW_SAMPLES + 2 * PAD;

/** Everything that depends only on the constants above, built once on first use. */
interface Tables {
  /** Periodic Hann window. */
  window: Float64Array;
  /** Twiddles ω_n^(j·t), t = 1..radix-1, by group j, of the three FFT stages that need them. */
  twr: Float64Array[];
  twi: Float64Array[];
  /**
   * The filterbank by bin: the triangles overlap by halves, so bin k lies in at most two bands, next
   * to each other: slot[k] − 1 (weight wa[k]) and slot[k] (weight wb[k]). Slots are band + 1, slot 0
   * and slot 81 being sinks for the bins at the ends that belong to no band.
   */
  slot: Int32Array;
  wa: Float64Array;
  wb: Float64Array;
  /** For log10: 2^-(e) by biased exponent, and ln c and 1/c for 256 mantissa steps c. */
  pow2: Float64Array;
  logC: Float64Array;
  invC: Float64Array;
}

let tables: Tables | undefined;

/** Slaney's mel scale (librosa htk=False): linear below 1 kHz, logarithmic above. */
const F_SP = 200 / 3;
const MIN_LOG_HZ = 1000;
const MIN_LOG_MEL = MIN_LOG_HZ / F_SP;
const LOG_STEP = Math.log(6.4) / 27;
const hzToMel = (hz: number) => (hz >= MIN_LOG_HZ ? MIN_LOG_MEL + Math.log(hz / MIN_LOG_HZ) / LOG_STEP : hz / F_SP);
const melToHz = (mel: number) => (mel >= MIN_LOG_MEL ? MIN_LOG_HZ * Math.exp(LOG_STEP * (mel - MIN_LOG_MEL)) : F_SP * mel);

function buildTables(): Tables {
  const window = new Float64Array(N_FFT);
  // Periodic Hann (denominator N, not N-1), as torch.hann_window / scipy's sym=False.
  for (let n = 0; n < N_FFT; n++) window[n] = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT);

  // The FFT runs radix 4, 4, 5, 5 (see fft400); stage i has length n = 400, 100, 25, 5 and
  // n / radix groups. The last stage has one group, whose twiddles are all 1.
  const twr: Float64Array[] = [];
  const twi: Float64Array[] = [];
  for (const [radix, n] of [[4, 400], [4, 100], [5, 25]] as const) {
    const m = n / radix;
    const re = new Float64Array(m * (radix - 1));
    const im = new Float64Array(m * (radix - 1));
    for (let j = 0; j < m; j++) {
      for (let t = 1; t < radix; t++) {
        const a = (-2 * Math.PI * j * t) / n;
        re[j * (radix - 1) + t - 1] = Math.cos(a);
        im[j * (radix - 1) + t - 1] = Math.sin(a);
      }
    }
    twr.push(re);
    twi.push(im);
  }

  // librosa.filters.mel(sr=16000, n_fft=400, n_mels=80, fmin=0, fmax=8000, htk=False, norm='slaney').
  const melMax = hzToMel(TURN_SAMPLE_RATE / 2);
  const edges = new Float64Array(TURN_MEL_BANDS + 2);
  for (let i = 0; i < edges.length; i++) edges[i] = melToHz((melMax * i) / (TURN_MEL_BANDS + 1));
  const dense: Float64Array[] = [];
  for (let b = 0; b < TURN_MEL_BANDS; b++) {
    const lo = edges[b]!;
    const mid = edges[b + 1]!;
    const hi = edges[b + 2]!;
    const norm = 2 / (hi - lo); // Slaney: each triangle has unit area in Hz
    const band = new Float64Array(BINS);
    for (let k = 0; k < BINS; k++) {
      const f = (k * TURN_SAMPLE_RATE) / N_FFT;
      band[k] = Math.max(0, Math.min((f - lo) / (mid - lo), (hi - f) / (hi - mid))) * norm;
    }
    dense.push(band);
  }
  // Applied per bin rather than per band: 201 steps of two multiply-adds each instead of 80 short
  // loops of varying length (0.9 ms against 1.4 ms for the 800 frames here).
  const slot = new Int32Array(BINS);
  const wa = new Float64Array(BINS);
  const wb = new Float64Array(BINS);
  for (let k = 0; k < BINS; k++) {
    const bands = dense.flatMap((band, b) => (band[k]! > 0 ? [b] : []));
    if (bands.length > 2 || (bands.length === 2 && bands[1] !== bands[0]! + 1)) throw new Error(`mel bin ${k} is in bands ${bands.join(', ')}`);
    const b = bands[0];
    if (b === undefined) continue; // slot 0, weights 0
    slot[k] = b + 1;
    wa[k] = dense[b]![k]!;
    wb[k] = b + 1 < TURN_MEL_BANDS ? dense[b + 1]![k]! : 0;
  }
  const pow2 = new Float64Array(2048);
  // v · pow2[biased exponent of v] is v's mantissa in [1, 2), exactly (normal numbers; v ≥ 1e-10 here).
  for (let e = 1; e < 2047; e++) pow2[e] = Math.pow(2, 1023 - e);
  const logC = new Float64Array(256);
  const invC = new Float64Array(256);
  for (let i = 0; i < 256; i++) {
    const c = 1 + (i + 0.5) / 256;
    logC[i] = Math.log(c);
    invC[i] = 1 / c;
  }
  return { window, twr, twi, slot, wa, wb, pow2, logC, invC };
}

// Scratch buffers, reused by every call (the big ones allocated on first use).
/**
 * The 8 s with their reflect padding, as float32: the samples come as float32 and are stored as they
 * are (the normalisation happens in the window), so nothing is lost, and the working set stays small.
 */
let padded: Float32Array | undefined;
/** The window with the waveform's normalisation folded in: frame[n] = x[n]·ws[n] − wo[n]. */
const ws = new Float64Array(N_FFT);
const wo = new Float64Array(N_FFT);
const ar = new Float64Array(N_FFT);
const ai = new Float64Array(N_FFT);
const br = new Float64Array(N_FFT);
const bi = new Float64Array(N_FFT);
/** Mel energies of the two frames of an FFT, by slot (band + 1). */
const mel0 = new Float64Array(TURN_MEL_BANDS + 2);
const mel1 = new Float64Array(TURN_MEL_BANDS + 2);

/*
 * The FFT: 400 points as a Stockham (self-sorting, out-of-place) decimation-in-frequency FFT with
 * radices 4, 4, 5, 5. A stage of radix p on sequences of length n = p·m, s of them interleaved (the
 * q-th at q, q+s, ...), takes for each group j < m and each q the p-point DFT of x[q + s(j + r·m)],
 * r < p, multiplies its output t by the twiddle ω_n^(j·t) and writes it to y[q + s(p·j + t)]: the
 * next stage then sees s·p sequences of length m, and after the last the result is in natural order,
 * no digit reversal needed. 400 = 4·4·5·5 needs no zero padding, which would change the spectrum.
 */

/** First stage (radix 4, n 400, one sequence), reading two windowed frames of the padded signal: the one at re as the real part, at im as the imaginary part. */
function stage1(x: Float32Array, re: number, im: number, twr: Float64Array, twi: Float64Array): void {
  for (let j = 0; j < 100; j++) {
    const j1 = j + 100, j2 = j + 200, j3 = j + 300;
    const x0r = x[re + j]! * ws[j]! - wo[j]!, x0i = x[im + j]! * ws[j]! - wo[j]!;
    const x1r = x[re + j1]! * ws[j1]! - wo[j1]!, x1i = x[im + j1]! * ws[j1]! - wo[j1]!;
    const x2r = x[re + j2]! * ws[j2]! - wo[j2]!, x2i = x[im + j2]! * ws[j2]! - wo[j2]!;
    const x3r = x[re + j3]! * ws[j3]! - wo[j3]!, x3i = x[im + j3]! * ws[j3]! - wo[j3]!;
    const t0r = x0r + x2r, t0i = x0i + x2i;
    const t1r = x0r - x2r, t1i = x0i - x2i;
    const t2r = x1r + x3r, t2i = x1i + x3i;
    const t3r = x1r - x3r, t3i = x1i - x3i;
    const b1r = t1r + t3i, b1i = t1i - t3r;
    const b2r = t0r - t2r, b2i = t0i - t2i;
    const b3r = t1r - t3i, b3i = t1i + t3r;
    const w1r = twr[3 * j]!, w1i = twi[3 * j]!;
    const w2r = twr[3 * j + 1]!, w2i = twi[3 * j + 1]!;
    const w3r = twr[3 * j + 2]!, w3i = twi[3 * j + 2]!;
    const o = 4 * j;
    ar[o] = t0r + t2r;
    ai[o] = t0i + t2i;
    ar[o + 1] = b1r * w1r - b1i * w1i;
    ai[o + 1] = b1r * w1i + b1i * w1r;
    ar[o + 2] = b2r * w2r - b2i * w2i;
    ai[o + 2] = b2r * w2i + b2i * w2r;
    ar[o + 3] = b3r * w3r - b3i * w3i;
    ai[o + 3] = b3r * w3i + b3i * w3r;
  }
}

/** A radix-4 stage from (xr, xi) to (yr, yi). The 4-point DFT: b0 = t0 + t2, b2 = t0 − t2, b1,3 = t1 ∓ i·t3, with t0,1 = a0 ± a2 and t2,3 = a1 ± a3. */
function radix4(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, n: number, s: number, twr: Float64Array, twi: Float64Array): void {
  const m = n >> 2;
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    const w1r = twr[3 * j]!, w1i = twi[3 * j]!;
    const w2r = twr[3 * j + 1]!, w2i = twi[3 * j + 1]!;
    const w3r = twr[3 * j + 2]!, w3i = twi[3 * j + 2]!;
    for (let q = 0; q < s; q++) {
      const i0 = q + s * j;
      const i1 = i0 + sm, i2 = i1 + sm, i3 = i2 + sm;
      const t0r = xr[i0]! + xr[i2]!, t0i = xi[i0]! + xi[i2]!;
      const t1r = xr[i0]! - xr[i2]!, t1i = xi[i0]! - xi[i2]!;
      const t2r = xr[i1]! + xr[i3]!, t2i = xi[i1]! + xi[i3]!;
      const t3r = xr[i1]! - xr[i3]!, t3i = xi[i1]! - xi[i3]!;
      const b1r = t1r + t3i, b1i = t1i - t3r;
      const b2r = t0r - t2r, b2i = t0i - t2i;
      const b3r = t1r - t3i, b3i = t1i + t3r;
      const o = q + 4 * s * j;
      yr[o] = t0r + t2r;
      yi[o] = t0i + t2i;
      yr[o + s] = b1r * w1r - b1i * w1i;
      yi[o + s] = b1r * w1i + b1i * w1r;
      yr[o + 2 * s] = b2r * w2r - b2i * w2i;
      yi[o + 2 * s] = b2r * w2i + b2i * w2r;
      yr[o + 3 * s] = b3r * w3r - b3i * w3i;
      yi[o + 3 * s] = b3r * w3i + b3i * w3r;
    }
  }
}

const C1 = Math.cos((2 * Math.PI) / 5);
const C2 = Math.cos((4 * Math.PI) / 5);
const S1 = Math.sin((2 * Math.PI) / 5);
const S2 = Math.sin((4 * Math.PI) / 5);

/**
 * A radix-5 stage. The 5-point DFT written with its symmetric pairs u1,v1 = a1 ± a4, u2,v2 = a2 ± a3
 * (c = cos, s = sin of 2π/5, 4π/5): b0 = a0 + u1 + u2; b1,4 = A ∓ i·B with A = a0 + c1·u1 + c2·u2,
 * B = s1·v1 + s2·v2; b2,3 = C ∓ i·D with C = a0 + c2·u1 + c1·u2, D = s2·v1 − s1·v2.
 * No twiddle tables for the last stage (n = 5, one group), whose twiddles are all 1.
 */
function radix5(xr: Float64Array, xi: Float64Array, yr: Float64Array, yi: Float64Array, n: number, s: number, twr: Float64Array | undefined, twi: Float64Array | undefined): void {
  const m = n / 5;
  const sm = s * m;
  for (let j = 0; j < m; j++) {
    let w1r = 1, w1i = 0, w2r = 1, w2i = 0, w3r = 1, w3i = 0, w4r = 1, w4i = 0;
    if (twr && twi) {
      w1r = twr[4 * j]!; w1i = twi[4 * j]!;
      w2r = twr[4 * j + 1]!; w2i = twi[4 * j + 1]!;
      w3r = twr[4 * j + 2]!; w3i = twi[4 * j + 2]!;
      w4r = twr[4 * j + 3]!; w4i = twi[4 * j + 3]!;
    }
    for (let q = 0; q < s; q++) {
      const i0 = q + s * j;
      const i1 = i0 + sm, i2 = i1 + sm, i3 = i2 + sm, i4 = i3 + sm;
      const a0r = xr[i0]!, a0i = xi[i0]!;
      const u1r = xr[i1]! + xr[i4]!, u1i = xi[i1]! + xi[i4]!;
      const v1r = xr[i1]! - xr[i4]!, v1i = xi[i1]! - xi[i4]!;
      const u2r = xr[i2]! + xr[i3]!, u2i = xi[i2]! + xi[i3]!;
      const v2r = xr[i2]! - xr[i3]!, v2i = xi[i2]! - xi[i3]!;
      const Ar = a0r + C1 * u1r + C2 * u2r, Ai = a0i + C1 * u1i + C2 * u2i;
      const Br = S1 * v1r + S2 * v2r, Bi = S1 * v1i + S2 * v2i;
      const Cr = a0r + C2 * u1r + C1 * u2r, Ci = a0i + C2 * u1i + C1 * u2i;
      const Dr = S2 * v1r - S1 * v2r, Di = S2 * v1i - S1 * v2i;
      const b1r = Ar + Bi, b1i = Ai - Br;
      const b4r = Ar - Bi, b4i = Ai + Br;
      const b2r = Cr + Di, b2i = Ci - Dr;
      const b3r = Cr - Di, b3i = Ci + Dr;
      const o = q + 5 * s * j;
      yr[o] = a0r + u1r + u2r;
      yi[o] = a0i + u1i + u2i;
      if (!twr) {
        yr[o + s] = b1r; yi[o + s] = b1i;
        yr[o + 2 * s] = b2r; yi[o + 2 * s] = b2i;
        yr[o + 3 * s] = b3r; yi[o + 3 * s] = b3i;
        yr[o + 4 * s] = b4r; yi[o + 4 * s] = b4i;
        continue;
      }
      yr[o + s] = b1r * w1r - b1i * w1i;
      yi[o + s] = b1r * w1i + b1i * w1r;
      yr[o + 2 * s] = b2r * w2r - b2i * w2i;
      yi[o + 2 * s] = b2r * w2i + b2i * w2r;
      yr[o + 3 * s] = b3r * w3r - b3i * w3i;
      yi[o + 3 * s] = b3r * w3i + b3i * w3r;
      yr[o + 4 * s] = b4r * w4r - b4i * w4i;
      yi[o + 4 * s] = b4r * w4i + b4i * w4r;
    }
  }
}

/** The DFT of the two frames at re and im of x (re + i·im), left in (br, bi). */
function fft400(t: Tables, x: Float32Array, re: number, im: number): void {
  stage1(x, re, im, t.twr[0]!, t.twi[0]!);
  radix4(ar, ai, br, bi, 100, 4, t.twr[1]!, t.twi[1]!);
  radix5(br, bi, ar, ai, 25, 16, t.twr[2]!, t.twi[2]!);
  radix5(ar, ai, br, bi, 5, 80, undefined, undefined);
}

// log10 by table: Math.log10 costs ~27 ns a call here and 64,000 are needed per check (1.7 ms); this
// costs ~7 ns and is within 4e-15 of it. v = 2^e·m with m in [1, 2); m's top 8 bits pick c near m (the
// middle of its 1/256 step), and ln m = ln c + ln(1 + r), r = m/c − 1, |r| < 2e-3, where four terms of
// the series leave an error under 1e-14.
const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
/** The word holding sign, exponent and the top of the mantissa (1 on little-endian hosts). */
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/** log10(max(mel, 1e-10)) of one frame's mel energies (by slot) into out[band * 800 + frame]; returns max(max, those). */
function logMelFrame(t: Tables, mel: Float64Array, out: Float32Array, frame: number, max: number): number {
  const { pow2, logC, invC } = t;
  for (let b = 0; b < TURN_MEL_BANDS; b++) {
    let v = mel[b + 1]!;
    if (!(v > 1e-10)) v = 1e-10;
    bits[0] = v;
    const hi = words[HI]!;
    const e = hi >>> 20;
    const i = (hi >>> 12) & 0xff;
    const r = v * pow2[e]! * invC[i]! - 1;
    const lg = ((e - 1023) * Math.LN2 + logC[i]! + r * (1 - r * (0.5 - r * (1 / 3 - r * 0.25)))) * Math.LOG10E;
    out[b * TURN_FRAMES + frame] = lg;
    if (lg > max) max = lg;
  }
  return max;
}

// The steps below are separate functions, each with one hot loop, on purpose: in one big function
// V8 compiled each loop on its own while it ran (on-stack replacement), and that code bailed out
// on reaching the next loop on every call, which made the whole 2-2.5 times slower.

/**
 * Step 1: the last 8 s into x after its 200 samples of left padding, zeros in front when shorter.
 * Returns their sum and sum of squares (the zeros count: the window is normalised as a whole).
 */
function place(audio: Float32Array, x: Float32Array): { sum: number; sumSq: number } {
  const take = Math.min(audio.length, TURN_WINDOW_SAMPLES);
  const lead = TURN_WINDOW_SAMPLES - take;
  const from = audio.length - take;
  x.fill(0, PAD, PAD + lead);
  let sum = 0;
  let sumSq = 0;
  for (let i = 0, d = PAD + lead; i < take; i++, d++) {
    const v = audio[from + i]!;
    x[d] = v;
    sum += v;
    sumSq += v * v;
  }
  return { sum, sumSq };
}

/** How many of the 8 s start with exact zeros (the padding in front of a short turn, and any zeros of its own). */
function leadingZeros(audio: Float32Array): number {
  const take = Math.min(audio.length, TURN_WINDOW_SAMPLES);
  const from = audio.length - take;
  let z = 0;
  while (z < take && audio[from + z] === 0) z++;
  return TURN_WINDOW_SAMPLES - take + z;
}

/** Step 3's reflect padding (the edge sample itself not repeated), as numpy's 'reflect'. */
function reflect(x: Float32Array): void {
  const end = PAD + TURN_WINDOW_SAMPLES - 1;
  for (let i = 1; i <= PAD; i++) {
    x[PAD - i] = x[PAD + i]!;
    x[end + i] = x[end - i]!;
  }
}

/**
 * Steps 3-6 for frames f and f + 1 into out (band major); returns max(max, their values). Two real
 * frames per complex FFT: frame f as the real part, f+1 as the imaginary part. With
 * Z = FFT(x + iy), X[k] = (Z[k] + conj Z[N−k]) / 2 and Y[k] = (Z[k] − conj Z[N−k]) / 2i.
 */
function framePair(t: Tables, x: Float32Array, out: Float32Array, f: number, max: number): number {
  const { slot, wa, wb } = t;
  fft400(t, x, f * HOP, (f + 1) * HOP);
  mel0.fill(0);
  mel1.fill(0);
  for (let k = 0; k < BINS; k++) {
    const nk = k === 0 ? 0 : N_FFT - k;
    const a = br[k]!, b = bi[k]!, c = br[nk]!, d = bi[nk]!;
    const xr = a + c, xi = b - d, yr = b + d, yi = a - c;
    const p0 = 0.25 * (xr * xr + xi * xi);
    const p1 = 0.25 * (yr * yr + yi * yi);
    const sl = slot[k]!, u = wa[k]!, v = wb[k]!;
    mel0[sl] = mel0[sl]! + u * p0;
    mel0[sl + 1] = mel0[sl + 1]! + v * p0;
    mel1[sl] = mel1[sl]! + u * p1;
    mel1[sl + 1] = mel1[sl + 1]! + v * p1;
  }
  max = logMelFrame(t, mel0, out, f, max);
  return logMelFrame(t, mel1, out, f + 1, max);
}

/** Frames 2 .. end−1 (end even) as copies of frames 0 and 1, pair by pair. */
function repeatFirstPair(out: Float32Array, end: number): void {
  for (let b = 0; b < TURN_MEL_BANDS; b++) {
    const row = b * TURN_FRAMES;
    const v0 = out[row]!, v1 = out[row + 1]!;
    for (let f = 2; f < end; f += 2) {
      out[row + f] = v0;
      out[row + f + 1] = v1;
    }
  }
}

/**
 * Steps 3-6 for all 800 frames into out (band major); returns the largest value. The frames that
 * lie wholly in the zeros before a short turn (`zeros` samples of the 8 s) are all the same
 * constant (−mean·scale) times the window: their pair is computed once and copied, which skips most
 * of the work for a turn of a few seconds. The copies are exactly what computing them would give.
 */
function logMelSpectrogram(t: Tables, x: Float32Array, out: Float32Array, zeros: number): number {
  // Frame f spans x[160f, 160f + 400); with more than PAD zeros the left reflection is zeros too.
  const constant = zeros > PAD ? Math.min(TURN_FRAMES, Math.floor((PAD + zeros - N_FFT) / HOP) + 1) : 0;
  let max = -Infinity;
  let f = 0;
  if (constant >= 4) {
    max = framePair(t, x, out, 0, max);
    f = constant & ~1; // pairs before it are both constant
    repeatFirstPair(out, f);
  }
  for (; f < TURN_FRAMES; f += 2) max = framePair(t, x, out, f, max);
  return max;
}

/** Step 7, in place: clamp at floor, then (x + 4) / 4. */
function finish(out: Float32Array, floor: number): void {
  for (let i = 0; i < TURN_FEATURES_LENGTH; i++) {
    const v = out[i]!;
    out[i] = ((v > floor ? v : floor) + 4) / 4;
  }
}

/**
 * Smart Turn v3's input features for a turn's audio (16 kHz mono, any length; only the last 8 s
 * count): TURN_MEL_BANDS × TURN_FRAMES floats, band major. Writes into `out` when given (it must hold
 * TURN_FEATURES_LENGTH floats) and returns it.
 */
export function turnFeatures(audio: Float32Array, out?: Float32Array): Float32Array {
  const t = (tables ??= buildTables());
  const dst = out ?? new Float32Array(TURN_FEATURES_LENGTH);
  if (dst.length < TURN_FEATURES_LENGTH) throw new RangeError(`turnFeatures needs an output of ${TURN_FEATURES_LENGTH} floats, got ${dst.length}`);
  const x = (padded ??= new Float32Array(PADDED));

  const { sum, sumSq } = place(audio, x);
  // Step 2, zero mean and unit variance. One pass in Float64 is exact enough for audio in [-1, 1].
  // Rather than rewrite the 128,000 samples, the normalisation is folded into the window (it is
  // linear, and reflecting commutes with it): ((x − mean)·scale)·w = x·(w·scale) − mean·(w·scale).
  const mean = sum / TURN_WINDOW_SAMPLES;
  const variance = Math.max(0, sumSq / TURN_WINDOW_SAMPLES - mean * mean);
  const scale = 1 / Math.sqrt(variance + 1e-7);
  for (let n = 0; n < N_FFT; n++) {
    ws[n] = t.window[n]! * scale;
    wo[n] = ws[n]! * mean;
  }
  reflect(x);
  const max = logMelSpectrogram(t, x, dst, leadingZeros(audio));
  // The clamp's max is over the 800 frames kept (frame 801 is never computed).
  finish(dst, max - 8);
  return dst;
}
