/**
 * VITS's stochastic duration predictor as inference runs it: the conditioning (1×1 pre + the
 * speaker's 1×1 cond, a dilated depth-separable conv stack, 1×1 proj), then noise [1, 2, T] × the
 * noise scale sent back through the flows: Flip, ConvFlow, …, Flip, ElementwiseAffine (the first
 * ConvFlow is skipped in reverse, as VITS does, so the export has no weights for it). A ConvFlow is
 * an inverse monotonic rational-quadratic spline (Durkan et al., 2019; 10 bins, linear tails
 * beyond ±5) whose bins come from a DDSConv of the other channel. Channel 0 is log(frames).
 *
 * Random weights would give random durations, so the ElementwiseAffine (a trained voice's learned
 * offset and scale of log-duration) is set: log-durations centred on DURATION.meanFrames with the
 * spread of real phonemes, so a text takes as long to say, and to synthesize, as with the real voice.
 */
import { DT, type GraphBuilder } from './onnx-graph';
import type { VitsConfig } from './vits-config';
import { channelNorm, channels, conv, flip, gelu, type Net } from './vits-ops';

/**
 * Frames (256 samples, 11.6 ms) per input id before the ceil. sherpa-onnx gives piper each espeak
 * symbol (phonemes, stress marks, spaces, punctuation) followed by a pad id; this makes a symbol and
 * its pad about 50 ms, about 80 ms per phoneme (about 0.6 of the symbols are phonemes), measured
 * through sherpa-onnx on English sentences. `spread` scales the unit noise: log-durations vary
 * by ±0.4, as phonemes' do.
 */
export const DURATION = { meanFrames: 1.5, spread: 0.5 };

/** Seeded noise: a session draws the same sequence each time, so both forms speak a text equally long. */
export const NOISE_SEED = 1234;

const BINS = 10;
const TAIL = 5;
const MIN_BIN = 1e-3;
const MIN_DERIVATIVE = 1e-3;

/** Dilated depth-separable convolutions (dilation kernel^i), each followed by a 1×1, with norms and GELUs. */
function ddsConv(n: Net, x: string, mask: string, ch: number, kernel: number, layers: number, cond?: string): string {
  const { g } = n;
  if (cond) x = g.op('Add', [x, cond]);
  for (let i = 0; i < layers; i++) {
    let y = conv(n, g.op('Mul', [x, mask]), ch, ch, kernel, { groups: ch, dilation: kernel ** i });
    y = gelu(g, channelNorm(n, y, ch));
    y = gelu(g, channelNorm(n, conv(n, y, ch, ch, 1), ch));
    x = g.op('Add', [x, y]);
  }
  return g.op('Mul', [x, mask]);
}

/** Softmaxed bin sizes → knots [..., K+1] over [−TAIL, TAIL] and bin sizes [..., K]. */
function knots(g: GraphBuilder, unnormalized: string): { at: string; size: string } {
  const p = g.op('Softmax', [unnormalized], { axis: -1 });
  const sizes = g.op('Add', [g.op('Mul', [p, g.scalar(1 - MIN_BIN * BINS)]), g.scalar(MIN_BIN)]);
  const cum = g.op('Pad', [g.op('CumSum', [sizes, g.ints([-1], [])]), g.ints([0, 0, 0, 1, 0, 0, 0, 0]), g.scalar(0)]);
  const at = g.op('Sub', [g.op('Mul', [cum, g.scalar(2 * TAIL)]), g.scalar(TAIL)]);
  const size = g.op('Sub', [slice(g, at, 1, BINS + 1), slice(g, at, 0, BINS)]);
  return { at, size };
}

const slice = (g: GraphBuilder, x: string, from: number, to: number) => g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([-1])]);

/** The inverse spline: x [1, 1, T] through bins [1, 1, T, K] (widths, heights) and K−1 inner derivatives. */
function splineInverse(g: GraphBuilder, x: string, uw: string, uh: string, ud: string): string {
  const xe = g.op('Unsqueeze', [x, g.ints([-1])]);
  const inside = g.op('And', [g.op('GreaterOrEqual', [xe, g.scalar(-TAIL)]), g.op('LessOrEqual', [xe, g.scalar(TAIL)])]);
  const xc = g.op('Clip', [xe, g.scalar(-TAIL), g.scalar(TAIL)]);
  // Boundary derivatives are 1 (linear tails): softplus⁻¹(1 − min) on both ends.
  const edge = Math.log(Math.exp(1 - MIN_DERIVATIVE) - 1);
  const padded = g.op('Pad', [ud, g.ints([0, 0, 0, 1, 0, 0, 0, 1]), g.scalar(edge)]);
  const d = g.op('Add', [g.op('Softplus', [padded]), g.scalar(MIN_DERIVATIVE)]);
  const w = knots(g, uw);
  const h = knots(g, uh);
  // The bin: how many of the K left height knots lie at or below x, less one.
  const left = slice(g, h.at, 0, BINS);
  const below = g.op('ReduceSum', [g.op('Cast', [g.op('GreaterOrEqual', [xc, left])], { to: DT.FLOAT }), g.ints([-1])], { keepdims: 1 });
  const bin = g.op('Sub', [below, g.scalar(1)]);
  const oneHot = g.op('Cast', [g.op('Equal', [bin, g.floats(Array.from({ length: BINS }, (_, i) => i))])], { to: DT.FLOAT });
  const pick = (v: string) => g.op('ReduceSum', [g.op('Mul', [v, oneHot]), g.ints([-1])], { keepdims: 1 });
  const cw = pick(slice(g, w.at, 0, BINS));
  const bw = pick(w.size);
  const ch = pick(left);
  const bh = pick(h.size);
  const delta = pick(g.op('Div', [h.size, w.size]));
  const d0 = pick(slice(g, d, 0, BINS));
  const d1 = pick(slice(g, d, 1, BINS + 1));
  // Solve the bin's rational quadratic for θ: a θ² + b θ + c = 0, the root 2c / (−b − √(b² − 4ac)).
  const dy = g.op('Sub', [xc, ch]);
  const s = g.op('Sub', [g.op('Add', [d0, d1]), g.op('Mul', [delta, g.scalar(2)])]);
  const a = g.op('Add', [g.op('Mul', [dy, s]), g.op('Mul', [bh, g.op('Sub', [delta, d0])])]);
  const b = g.op('Sub', [g.op('Mul', [bh, d0]), g.op('Mul', [dy, s])]);
  const c = g.op('Neg', [g.op('Mul', [delta, dy])]);
  const disc = g.op('Relu', [g.op('Sub', [g.op('Mul', [b, b]), g.op('Mul', [g.op('Mul', [a, c]), g.scalar(4)])])]);
  const theta = g.op('Div', [g.op('Mul', [c, g.scalar(2)]), g.op('Sub', [g.op('Neg', [b]), g.op('Sqrt', [disc])])]);
  const y = g.op('Add', [g.op('Mul', [theta, bw]), cw]);
  return g.op('Squeeze', [g.op('Where', [inside, y, xe]), g.ints([-1])]);
}

/** One ConvFlow in reverse: channel 1 goes back through a spline conditioned on channel 0 and `cond`. */
function convFlowReverse(n: Net, z: string, mask: string, cond: string, ch: number, kernel: number): string {
  const { g } = n;
  const x0 = channels(g, z, 0, 1);
  const x1 = channels(g, z, 1, 2);
  let h = ddsConv(n, conv(n, x0, 1, ch, 1), mask, ch, kernel, 3, cond);
  // A trained ConvFlow's projection starts at zero and stays small: near-uniform bins, a spline
  // near identity, so the calibration below decides the durations whatever the seed.
  h = g.op('Mul', [conv(n, h, ch, 3 * BINS - 1, 1, { gain: 0.1 }), mask]);
  // [1, 3K−1, T] → [1, 1, T, 3K−1]
  h = g.op('Transpose', [g.op('Unsqueeze', [h, g.ints([1])])], { perm: [0, 1, 3, 2] });
  const norm = g.scalar(1 / Math.sqrt(ch));
  const uw = g.op('Mul', [slice(g, h, 0, BINS), norm]);
  const uh = g.op('Mul', [slice(g, h, BINS, 2 * BINS), norm]);
  const ud = slice(g, h, 2 * BINS, 3 * BINS - 1);
  return g.op('Mul', [g.op('Concat', [x0, splineInverse(g, x1, uw, uh, ud)], { axis: 1 }), mask]);
}

/**
 * x: the text encoder's output [1, hidden, T]; spk: the speaker [1, gin, 1]; noiseW: noise_scale_w
 * (a scalar). Returns log-durations in frames, [1, 1, T].
 */
export function durationPredictor(n: Net, x: string, mask: string, spk: string, noiseW: string, c: VitsConfig): string {
  const { g } = n;
  const f = c.sdpFilter;
  let h = g.op('Add', [conv(n, x, c.hidden, f, 1), conv(n, spk, c.gin, f, 1)]);
  h = ddsConv(n, h, mask, f, c.kernel, 3);
  h = g.op('Mul', [conv(n, h, f, f, 1), mask]);
  const shape = g.op('Concat', [g.ints([1, 2]), g.op('Slice', [g.op('Shape', [x]), g.ints([2]), g.ints([3])])], { axis: 0 });
  let z = g.op('Mul', [g.op('RandomNormalLike', [g.op('ConstantOfShape', [shape], { value: { tensor: { dims: [1], type: DT.FLOAT, data: Float32Array.of(0) } } })], { seed: { f: NOISE_SEED } }), noiseW]);
  for (let i = 1; i < c.sdpFlows; i++) z = convFlowReverse(n, flip(g, z), mask, h, f, c.kernel);
  z = flip(g, z);
  // ElementwiseAffine in reverse, (z − m) · e^(−logs): channel 0 becomes ln(meanFrames) + spread · z.
  const s = DURATION.spread;
  const m = g.tensor('ea_m', { dims: [2, 1], type: DT.FLOAT, data: Float32Array.of(-Math.log(DURATION.meanFrames) / s, 0) });
  const logs = g.tensor('ea_logs', { dims: [2, 1], type: DT.FLOAT, data: Float32Array.of(-Math.log(s), 0) });
  z = g.op('Mul', [g.op('Mul', [g.op('Sub', [z, m]), g.op('Exp', [g.op('Neg', [logs])])]), mask]);
  return channels(g, z, 0, 1);
}
