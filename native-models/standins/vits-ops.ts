/**
 * The layers the Piper VITS stand-in is made of, in the two forms its published exports take:
 * float32 (piper's own export), and what onnxruntime's `quantize_dynamic(weight_type=QUInt8)` makes
 * of it (sherpa-onnx's scripts/piper/dynamic_quantization.py): every Conv becomes
 * DynamicQuantizeLinear → ConvInteger with uint8 weights → scale, an embedding Gather gathers uint8
 * rows then dequantizes, ConvTranspose (no integer kernel) and every MatMul (none has a constant B:
 * MatMulConstBOnly) stay float32. Weights have a 1/sqrt(fan-in) spread (fan-in = in-channels ×
 * kernel) so activations keep a trained model's magnitudes: vanishing ones would reach denormals,
 * which run slower than the real model.
 */
import { DT, type GraphBuilder } from './onnx-graph';

export type VitsForm = 'fp32' | 'quint8';

/** The builder and the form the weights take. */
export interface Net {
  g: GraphBuilder;
  form: VitsForm;
}

/** Spread of uniform bytes around their zero point 128 (255 / sqrt(12)). */
const UINT8_STD = 73.6;

export interface ConvOpts {
  dilation?: number;
  groups?: number;
  /** Padding each side; default keeps the length ('same'). */
  pad?: number;
  bias?: boolean;
  /** Multiplies the weights' 1/sqrt(fan-in) spread. */
  gain?: number;
}

/**
 * A weight tensor as uniform bytes around 128 times a scale giving the `std` spread: stored as those
 * bytes in the quantized form, as their float values in float32. Both forms draw the same bytes, so
 * they compute the same voice (the same durations, the same audio length) and differ only in speed.
 */
function weights(n: Net, prefix: string, dims: number[], std: number): { name: string; scale: number } {
  const count = dims.reduce((a, b) => a * b, 1);
  const bytes = n.g.rng.bytes(count);
  const scale = std / UINT8_STD;
  if (n.form === 'quint8') return { name: n.g.tensor(`${prefix}q`, { dims, type: DT.UINT8, data: bytes }), scale };
  return { name: n.g.tensor(prefix, { dims, type: DT.FLOAT, data: Float32Array.from(bytes, (b) => (b - 128) * scale) }), scale };
}

const zeroPoint = (n: Net) => n.g.tensor('zp', { dims: [], type: DT.UINT8, data: Uint8Array.of(128) }, false);

/** x [1, inCh, T] → [1, outCh, T]: Conv1d, or ConvInteger in the quantized form. */
export function conv(n: Net, x: string, inCh: number, outCh: number, kernel: number, o: ConvOpts = {}): string {
  const { g } = n;
  const groups = o.groups ?? 1;
  const dilation = o.dilation ?? 1;
  const pad = o.pad ?? ((kernel - 1) * dilation) / 2;
  const attrs = { kernel_shape: [kernel], strides: [1], dilations: [dilation], group: groups, pads: [pad, pad] };
  const w = weights(n, 'conv', [outCh, inCh / groups, kernel], (o.gain ?? 1) / Math.sqrt((inCh / groups) * kernel));
  let y: string;
  if (n.form === 'fp32') {
    y = g.op('Conv', [x, w.name], attrs);
  } else {
    const [xq, xScale, xZero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
    const acc = g.op('ConvInteger', [xq!, w.name, xZero!, zeroPoint(n)], attrs);
    y = g.op('Mul', [g.op('Cast', [acc], { to: DT.FLOAT }), g.op('Mul', [xScale!, g.scalar(w.scale)])]);
  }
  return o.bias === false ? y : g.op('Add', [y, g.param('cb', [outCh, 1], 0.02)]);
}

/** x [1, inCh, T] → [1, outCh, T × stride]: ConvTranspose1d, float32 in both forms. */
export function convTranspose(n: Net, x: string, inCh: number, outCh: number, kernel: number, stride: number): string {
  const { g } = n;
  const pad = (kernel - stride) / 2;
  // Each output sample sums kernel / stride taps of inCh channels.
  const w = g.param('convt', [inCh, outCh, kernel], 1 / Math.sqrt((inCh * kernel) / stride));
  const y = g.op('ConvTranspose', [x, w], { kernel_shape: [kernel], strides: [stride], pads: [pad, pad] });
  return g.op('Add', [y, g.param('cb', [outCh, 1], 0.02)]);
}

/** ids [...] → [..., dim]: an embedding table's rows (uint8 rows, dequantized, in the quantized form). */
export function embedding(n: Net, ids: string, rows: number, dim: number, std: number): string {
  const { g } = n;
  const table = weights(n, 'emb', [rows, dim], std);
  const rowsOf = g.op('Gather', [table.name, ids], { axis: 0 });
  return n.form === 'fp32' ? rowsOf : g.op('DequantizeLinear', [rowsOf, g.scalar(table.scale), zeroPoint(n)]);
}

/** LayerNorm over the channels of [1, C, T] (VITS's modules.LayerNorm: moved last, normalized, moved back). */
export function channelNorm(n: Net, x: string, ch: number): string {
  const { g } = n;
  const t = g.op('Transpose', [x], { perm: [0, 2, 1] });
  const y = g.op('LayerNormalization', [t, g.filled('ln_g', [ch], 1), g.filled('ln_b', [ch], 0)], { axis: -1, epsilon: { f: 1e-5 } });
  return g.op('Transpose', [y], { perm: [0, 2, 1] });
}

export function leakyRelu(g: GraphBuilder, x: string, slope: number): string {
  return g.op('LeakyRelu', [x], { alpha: { f: slope } });
}

/** Exact GELU, as torch exports it below opset 20: x/2 · (1 + erf(x/√2)). */
export function gelu(g: GraphBuilder, x: string): string {
  const erf = g.op('Erf', [g.op('Mul', [x, g.scalar(Math.SQRT1_2)])]);
  return g.op('Mul', [g.op('Mul', [x, g.scalar(0.5)]), g.op('Add', [erf, g.scalar(1)])]);
}

/** Channels [from, to) of [1, C, T]. */
export function channels(g: GraphBuilder, x: string, from: number, to: number): string {
  return g.op('Slice', [x, g.ints([from]), g.ints([to]), g.ints([1])]);
}

/** The channel order reversed (VITS's Flip between flows). */
export function flip(g: GraphBuilder, x: string): string {
  return g.op('Slice', [x, g.ints([-1]), g.ints([-(2 ** 63)]), g.ints([1]), g.ints([-1])]);
}
