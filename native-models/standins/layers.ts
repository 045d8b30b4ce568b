/**
 * The layers the stand-ins are made of, on a GraphBuilder, in the two forms the published files
 * use: float32, and onnxruntime's dynamic int8 quantization (what `quantize_dynamic` writes:
 * DynamicQuantizeLinear on the activations, MatMulInteger or ConvInteger with int8 or uint8
 * weights, then the scales multiplied back in float). The form decides the speed, not the values.
 */
import { DT, type GraphBuilder } from './onnx-graph';

/** How a layer's weights are stored: float32, or dynamically quantized with int8 (QInt8) or uint8 (QUInt8) weights. */
export type WeightForm = 'fp32' | 'qint8' | 'quint8';

function quantizedWeight(g: GraphBuilder, prefix: string, dims: number[], form: 'qint8' | 'quint8', fanIn: number): { w: string; zero: string; scale: string } {
  const n = dims.reduce((a, b) => a * b, 1);
  const w =
    form === 'qint8'
      ? g.tensor(prefix, { dims, type: DT.INT8, data: g.rng.int8(n) })
      : g.tensor(prefix, { dims, type: DT.UINT8, data: g.rng.bytes(n) });
  const zero =
    form === 'qint8'
      ? g.tensor('zp', { dims: [], type: DT.INT8, data: new Int8Array(1) }, false)
      : g.tensor('zp', { dims: [], type: DT.UINT8, data: Uint8Array.of(128) }, false);
  // Scale so the dequantized weights have about a 1/sqrt(fan-in) spread, as a trained layer would.
  return { w, zero, scale: g.scalar(1 / (73 * Math.sqrt(fanIn))) };
}

/** x [..., inDim] → [..., outDim]: MatMul (+ bias). */
export function linear(g: GraphBuilder, x: string, inDim: number, outDim: number, opts: { form?: WeightForm; bias?: boolean } = {}): string {
  const form = opts.form ?? 'fp32';
  let y: string;
  if (form === 'fp32') {
    y = g.op('MatMul', [x, g.param('w', [inDim, outDim])]);
  } else {
    const q = quantizedWeight(g, 'wq', [inDim, outDim], form, inDim);
    const [xq, xScale, xZero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
    const acc = g.op('MatMulInteger', [xq!, q.w, xZero!, q.zero]);
    const scale = g.op('Mul', [xScale!, q.scale]);
    y = g.op('Mul', [g.op('Cast', [acc], { to: DT.FLOAT }), scale]);
  }
  return opts.bias === false ? y : g.op('Add', [y, g.param('b', [outDim], 0.02)]);
}

export interface ConvOptions {
  form?: WeightForm;
  stride?: number;
  dilation?: number;
  groups?: number;
  /** Padding on each side; default keeps the length at stride 1 ('same'). */
  pad?: number;
  bias?: boolean;
}

/** x [N, inCh, T] → [N, outCh, T']: a 1-D convolution. */
export function conv1d(g: GraphBuilder, x: string, inCh: number, outCh: number, kernel: number, opts: ConvOptions = {}): string {
  const form = opts.form ?? 'fp32';
  const groups = opts.groups ?? 1;
  const dilation = opts.dilation ?? 1;
  const pad = opts.pad ?? Math.floor(((kernel - 1) * dilation) / 2);
  const attrs = { kernel_shape: [kernel], strides: [opts.stride ?? 1], dilations: [dilation], group: groups, pads: [pad, pad] };
  const dims = [outCh, inCh / groups, kernel];
  // A convolution's fan-in is its input channels per group times its kernel.
  const fanIn = (inCh / groups) * kernel;
  let y: string;
  if (form === 'fp32') {
    y = g.op('Conv', [x, g.param('conv', dims, 1 / Math.sqrt(fanIn))], attrs);
  } else {
    const q = quantizedWeight(g, 'convq', dims, form, fanIn);
    const [xq, xScale, xZero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
    const acc = g.op('ConvInteger', [xq!, q.w, xZero!, q.zero], attrs);
    y = g.op('Mul', [g.op('Cast', [acc], { to: DT.FLOAT }), g.op('Mul', [xScale!, q.scale])]);
  }
  if (opts.bias === false) return y;
  return g.op('Add', [y, g.param('cb', [outCh, 1], 0.02)]);
}

/** LayerNormalization over the last axis, with its own scale and bias. */
export function layerNorm(g: GraphBuilder, x: string, dim: number): string {
  return g.op('LayerNormalization', [x, g.filled('ln_w', [dim], 1), g.filled('ln_b', [dim], 0)], { axis: -1, epsilon: { f: 1e-5 } });
}

/** x · sigmoid(x) (Swish / SiLU). */
export function swish(g: GraphBuilder, x: string): string {
  return g.op('Mul', [x, g.op('Sigmoid', [x])]);
}

/** [N, T, C] ↔ [N, C, T]. */
export function transposeTC(g: GraphBuilder, x: string): string {
  return g.op('Transpose', [x], { perm: [0, 2, 1] });
}
