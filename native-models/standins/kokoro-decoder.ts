/**
 * Kokoro's decoder (StyleTTS 2's iSTFTNet decoder) for the kokoro stand-in: the style-conditioned
 * blocks it shares with the prosody predictor (AdaIN1d, AdainResBlk1d), the four-block decoder over
 * the aligned text, F0 and energy, then the generator: a harmonic-plus-noise source from F0 at the
 * audio rate, its STFT fed back at two resolutions, two transposed-convolution upsamplings with
 * AdaIN residual blocks (Snake activations), and an inverse STFT to 24 kHz samples.
 */
import { DT, type GraphBuilder } from './onnx-graph';
import { conv1d, linear } from './layers';

export interface DecoderSizes {
  /** Width of the aligned text features (hidden_dim). */
  text: number;
  /** Style vector width (the first half of the voice's 256). */
  style: number;
  /** The decoder's blocks' width (1024) and the text residual's (64). */
  encode: number;
  asrRes: number;
  /** iSTFTNet: upsample_initial_channel, upsample_rates and kernels, the residual blocks' kernels and dilations. */
  initial: number;
  rates: number[];
  kernels: number[];
  resKernels: number[];
  resDilations: number[][];
  /** gen_istft_n_fft, gen_istft_hop_size, the source's harmonics above F0, the sample rate. */
  nFft: number;
  hop: number;
  harmonics: number;
  sampleRate: number;
}

/** x [1, inCh, T] → [1, outCh, (T−1)·stride − 2·pad + kernel + outputPadding]: a transposed 1-D convolution with bias. */
export function convTranspose1d(
  g: GraphBuilder,
  x: string,
  inCh: number,
  outCh: number,
  kernel: number,
  opts: { stride: number; pad: number; outputPadding?: number; groups?: number },
): string {
  const groups = opts.groups ?? 1;
  const attrs = { kernel_shape: [kernel], strides: [opts.stride], pads: [opts.pad, opts.pad], output_padding: [opts.outputPadding ?? 0], group: groups };
  const w = g.param('convt', [inCh, outCh / groups, kernel], 1 / Math.sqrt((inCh / groups) * kernel));
  return g.op('ConvTranspose', [x, w, g.param('convt_b', [outCh], 0.02)], attrs);
}

/** [1, 2C, 1] → its two halves (gamma, beta), as StyleTTS 2 chunks a style projection. */
function styleAffine(g: GraphBuilder, s: string, style: number, channels: number): [string, string] {
  const h = g.op('Unsqueeze', [linear(g, s, style, 2 * channels), g.ints([2])]);
  const [gamma, beta] = g.node('Split', [h], { axis: 1 }, 2);
  return [gamma!, beta!];
}

/** AdaIN1d: instance norm over time (the export's affine one), then (1 + γ(s))·x + β(s). x [1, C, T]. */
export function adaIN1d(g: GraphBuilder, x: string, s: string, style: number, channels: number): string {
  const norm = g.op('InstanceNormalization', [x, g.filled('in_w', [channels], 1), g.filled('in_b', [channels], 0)], { epsilon: { f: 1e-5 } });
  const [gamma, beta] = styleAffine(g, s, style, channels);
  return g.op('Add', [g.op('Mul', [norm, g.op('Add', [gamma, g.scalar(1)])]), beta]);
}

const leaky = (g: GraphBuilder, x: string, alpha: number) => g.op('LeakyRelu', [x], { alpha: { f: alpha } });

/** Nearest-neighbour ×2 along time (F.interpolate's 'nearest'). */
function upsample2(g: GraphBuilder, x: string): string {
  return g.op('Resize', [x, '', g.floats([1, 1, 2])], { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' });
}

/**
 * AdainResBlk1d: AdaIN, LeakyReLU(0.2), (a depthwise transposed conv doubling the length,) conv k3,
 * AdaIN, LeakyReLU, conv k3; plus the shortcut (nearest ×2, a 1×1 conv when the width changes);
 * the sum scaled by 1/√2. x [1, dimIn, T] → [1, dimOut, T or 2T].
 */
export function adainResBlk1d(g: GraphBuilder, x: string, s: string, style: number, dimIn: number, dimOut: number, upsample = false): string {
  let r = leaky(g, adaIN1d(g, x, s, style, dimIn), 0.2);
  if (upsample) r = convTranspose1d(g, r, dimIn, dimIn, 3, { stride: 2, pad: 1, outputPadding: 1, groups: dimIn });
  r = conv1d(g, r, dimIn, dimOut, 3);
  r = leaky(g, adaIN1d(g, r, s, style, dimOut), 0.2);
  r = conv1d(g, r, dimOut, dimOut, 3);
  let short = upsample ? upsample2(g, x) : x;
  if (dimIn !== dimOut) short = conv1d(g, short, dimIn, dimOut, 1, { bias: false });
  return g.op('Mul', [g.op('Add', [r, short]), g.scalar(Math.SQRT1_2)]);
}

/** Snake: x + sin²(αx)/α, α learned per channel (ones at initialization). */
function snake(g: GraphBuilder, x: string, channels: number): string {
  const alpha = g.filled('alpha', [1, channels, 1], 1);
  const sin = g.op('Sin', [g.op('Mul', [x, alpha])]);
  return g.op('Add', [x, g.op('Mul', [g.op('Mul', [sin, sin]), g.op('Reciprocal', [alpha])])]);
}

/** AdaINResBlock1 (the generator's): per dilation, AdaIN → Snake → dilated conv → AdaIN → Snake → conv, residual. */
function adaINResBlock1(g: GraphBuilder, x: string, s: string, style: number, ch: number, kernel: number, dilations: number[]): string {
  for (const d of dilations) {
    let t = conv1d(g, snake(g, adaIN1d(g, x, s, style, ch), ch), ch, ch, kernel, { dilation: d });
    t = conv1d(g, snake(g, adaIN1d(g, t, s, style, ch), ch), ch, ch, kernel);
    x = g.op('Add', [t, x]);
  }
  return x;
}

/** A periodic Hann window of n points. */
const hann = (n: number) => Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));

/**
 * The one-sided DFT as convolution kernels [2·bins, 1, nFft] (real parts, then imaginary), windowed:
 * the STFT of a [1, 1, L] signal is one strided Conv. `inverse` gives the irfft's synthesis kernels
 * for ConvTranspose instead. Fixed buffers, not parameters.
 */
function dftKernels(g: GraphBuilder, nFft: number, inverse: boolean): string {
  const bins = nFft / 2 + 1;
  const w = hann(nFft);
  const data = new Float32Array(2 * bins * nFft);
  for (let k = 0; k < bins; k++) {
    // irfft counts each bin but DC and Nyquist twice (its conjugate), over nFft.
    const c = inverse ? (k === 0 || k === nFft / 2 ? 1 : 2) / nFft : 1;
    for (let n = 0; n < nFft; n++) {
      const a = (2 * Math.PI * k * n) / nFft;
      data[k * nFft + n] = c * Math.cos(a) * w[n]!;
      data[(bins + k) * nFft + n] = -c * Math.sin(a) * w[n]!;
    }
  }
  return g.tensor('dft', { dims: [2 * bins, 1, nFft], type: DT.FLOAT, data }, false);
}

/** atan2(y, x) from Atan and the quadrant (ONNX has no Atan2). */
function atan2(g: GraphBuilder, y: string, x: string): string {
  const zero = g.scalar(0);
  const safeX = g.op('Where', [g.op('Equal', [x, zero]), g.scalar(1e-12), x]);
  const base = g.op('Atan', [g.op('Div', [y, safeX])]);
  const turn = g.op('Where', [g.op('GreaterOrEqual', [y, zero]), g.scalar(Math.PI), g.scalar(-Math.PI)]);
  return g.op('Add', [base, g.op('Where', [g.op('Less', [x, zero]), turn, zero])]);
}

/**
 * SourceModuleHnNSF: F0 [1, 1, 2F] (the predictor's rate) → the harmonic source [1, 1, L] at the
 * audio rate: F0 upsampled, its first `harmonics` overtones' phases integrated on the frame grid
 * (SineGen's down-interpolate, cumsum, up-interpolate), sines where voiced (F0 > 10 Hz), noise,
 * merged by a linear layer and tanh.
 */
function harmonicSource(g: GraphBuilder, f0: string, z: DecoderSizes, up: number): string {
  const dim = z.harmonics + 1;
  const f0Up = g.op('Resize', [f0, '', g.floats([1, 1, up])], { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' });
  const fn = g.op('Mul', [f0Up, g.floats(Array.from({ length: dim }, (_, i) => i + 1), [1, dim, 1])]);
  const rad = g.op('Mod', [g.op('Div', [fn, g.scalar(z.sampleRate)]), g.scalar(1)], { fmod: 1 });
  const frames = g.op('Slice', [g.op('Shape', [f0]), g.ints([2]), g.ints([3])]);
  const coarse = g.op('Resize', [rad, '', '', g.op('Concat', [g.ints([1, dim]), frames], { axis: 0 })], { mode: 'linear' });
  const phase = g.op('Mul', [g.op('CumSum', [coarse, g.ints([2], [])]), g.scalar(2 * Math.PI * up)]);
  const sines = g.op('Mul', [g.op('Sin', [g.op('Resize', [phase, '', g.floats([1, 1, up])], { mode: 'linear' })]), g.scalar(0.1)]);
  const uv = g.op('Cast', [g.op('Greater', [f0Up, g.scalar(10)])], { to: DT.FLOAT });
  // Noise: std 0.003 where voiced, 0.1/3 where not.
  const noiseStd = g.op('Add', [g.op('Mul', [uv, g.scalar(0.003 - 0.1 / 3)]), g.scalar(0.1 / 3)]);
  const noise = g.op('Mul', [g.op('RandomNormalLike', [sines], { seed: { f: 1 } }), noiseStd]);
  const waves = g.op('Add', [g.op('Mul', [sines, uv]), noise]);
  return g.op('Tanh', [conv1d(g, waves, dim, 1, 1)]);
}

/** The STFT of [1, 1, L] (centred, reflect-padded, Hann): magnitude and phase, [1, 2·bins, L/hop + 1]. */
function stft(g: GraphBuilder, x: string, nFft: number, hop: number): string {
  const padded = g.op('Pad', [x, g.ints([0, 0, nFft / 2, 0, 0, nFft / 2])], { mode: 'reflect' });
  const spec = g.op('Conv', [padded, dftKernels(g, nFft, false)], { kernel_shape: [nFft], strides: [hop] });
  const [re, im] = g.node('Split', [spec], { axis: 1 }, 2);
  const mag = g.op('Sqrt', [g.op('Add', [g.op('Mul', [re!, re!]), g.op('Mul', [im!, im!])])]);
  return g.op('Concat', [mag, atan2(g, im!, re!)], { axis: 1 });
}

/** The inverse STFT of magnitude and phase [1, bins, M] each: overlap-add, divided by the window's envelope, centre trimmed → [hop·(M−1)]. */
function istft(g: GraphBuilder, mag: string, phase: string, nFft: number, hop: number): string {
  const frames = g.op('Concat', [g.op('Mul', [mag, g.op('Cos', [phase])]), g.op('Mul', [mag, g.op('Sin', [phase])])], { axis: 1 });
  const y = g.op('ConvTranspose', [frames, dftKernels(g, nFft, true)], { kernel_shape: [nFft], strides: [hop] });
  // The squared window summed over the overlapping frames (torch.istft's normalization).
  const count = g.op('Slice', [g.op('Shape', [mag]), g.ints([2]), g.ints([3])]);
  const ones = g.op('ConstantOfShape', [g.op('Concat', [g.ints([1, 1]), count], { axis: 0 })], { value: { tensor: { dims: [1], type: DT.FLOAT, data: Float32Array.of(1) } } });
  const w2 = g.floats(hann(nFft).map((w) => w * w), [1, 1, nFft]);
  const envelope = g.op('ConvTranspose', [ones, w2], { kernel_shape: [nFft], strides: [hop] });
  const wave = g.op('Div', [y, g.op('Max', [envelope, g.scalar(1e-11)])]);
  const trimmed = g.op('Slice', [wave, g.ints([nFft / 2]), g.ints([-nFft / 2]), g.ints([2])]);
  return g.op('Reshape', [trimmed, g.ints([-1])]);
}

/**
 * The iSTFTNet generator: x [1, initial, 2F], F0 [1, 1, 2F] → audio [600·F] (24 kHz, 25 ms a
 * frame): per upsampling, LeakyReLU(0.1), the source's STFT through a strided conv and an AdaIN
 * block added in, the transposed conv, then the mean of the AdaIN residual blocks; conv_post gives
 * log-magnitude and phase for the inverse STFT.
 */
function generator(g: GraphBuilder, x: string, s: string, f0: string, z: DecoderSizes): string {
  const up = z.rates.reduce((a, b) => a * b, 1) * z.hop;
  const bins2 = z.nFft + 2;
  const har = stft(g, harmonicSource(g, f0, z, up), z.nFft, z.hop);
  let ch = z.initial;
  z.rates.forEach((rate, i) => {
    const out = ch / 2;
    x = leaky(g, x, 0.1);
    const last = i === z.rates.length - 1;
    // The source joins at this resolution: strided down to it, except at the last (the STFT's own).
    const stride = z.rates.slice(i + 1).reduce((a, b) => a * b, 1);
    let src = last ? conv1d(g, har, bins2, out, 1) : conv1d(g, har, bins2, out, stride * 2, { stride, pad: Math.floor((stride + 1) / 2) });
    src = adaINResBlock1(g, src, s, z.style, out, last ? 11 : 7, [1, 3, 5]);
    x = convTranspose1d(g, x, ch, out, z.kernels[i]!, { stride: rate, pad: (z.kernels[i]! - rate) / 2 });
    // One sample of reflection on the left makes the frames line up with the STFT's L/hop + 1.
    if (last) x = g.op('Pad', [x, g.ints([0, 0, 1, 0, 0, 0])], { mode: 'reflect' });
    x = g.op('Add', [x, src]);
    const blocks = z.resKernels.map((k, j) => adaINResBlock1(g, x, s, z.style, out, k, z.resDilations[j]!));
    x = g.op('Mul', [g.op('Sum', blocks), g.scalar(1 / blocks.length)]);
    ch = out;
  });
  // conv_post drawn as StyleTTS 2 initializes it (N(0, 0.01²)): log-magnitudes near 0, so the
  // inverse STFT's output stays well inside [-1, 1] whatever the blocks before it give.
  const post = g.op('Add', [g.op('Conv', [leaky(g, x, 0.01), g.param('conv_post', [bins2, ch, 7], 0.01)], { kernel_shape: [7], pads: [3, 3] }), g.param('conv_post_b', [bins2, 1], 0.01)]);
  const [logMag, rawPhase] = g.node('Split', [post], { axis: 1 }, 2);
  const audio = istft(g, g.op('Exp', [logMag!]), g.op('Sin', [rawPhase!]), z.nFft, z.hop);
  return g.op('Clip', [audio, g.scalar(-1), g.scalar(1)]);
}

/**
 * The decoder: asr [1, text, F] (aligned text features), F0 and N [1, 1, 2F], style [1, style] →
 * audio [600·F]. F0 and N are strided back to the frame rate and concatenated with the text and
 * its 64-channel residual before each block; the last block doubles the rate for the generator.
 */
export function kokoroDecoder(g: GraphBuilder, asr: string, f0: string, n: string, s: string, z: DecoderSizes): string {
  const f0Frames = conv1d(g, f0, 1, 1, 3, { stride: 2, pad: 1 });
  const nFrames = conv1d(g, n, 1, 1, 3, { stride: 2, pad: 1 });
  let x = adainResBlk1d(g, g.op('Concat', [asr, f0Frames, nFrames], { axis: 1 }), s, z.style, z.text + 2, z.encode);
  const asrRes = conv1d(g, asr, z.text, z.asrRes, 1);
  const wide = z.encode + 2 + z.asrRes;
  for (let i = 0; i < 4; i++) {
    const last = i === 3;
    x = g.op('Concat', [x, asrRes, f0Frames, nFrames], { axis: 1 });
    x = adainResBlk1d(g, x, s, z.style, wide, last ? z.initial : z.encode, last);
  }
  return generator(g, x, s, f0, z);
}
