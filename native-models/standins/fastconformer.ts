/**
 * NeMo's FastConformer encoder on a GraphBuilder, as `ConformerEncoder.export()` writes it and
 * onnxruntime's `quantize_dynamic` (QUInt8, every op type it knows) then rewrites it: every Linear
 * becomes MatMulInteger and every Conv (the 2-D subsampling convolutions, the conformer's pointwise
 * and depthwise ones) ConvInteger, with uint8 weights; activation-by-activation products (the
 * attention scores) stay float. Input audio_signal [B, feat, T] and length [B]; output
 * outputs [B, d_model, T/8] and encoded_lengths [B].
 *
 * What runs, in order (NeMo's ConvSubsampling 'dw_striding', RelPositionalEncoding, ConformerLayer):
 *  - subsampling: Conv2d(1→C, 3×3, stride 2) + ReLU, then per further halving a depthwise
 *    Conv2d(3×3, stride 2) and a pointwise Conv2d(1×1) + ReLU; flatten C × feat/8 and project to d_model;
 *  - x · √d_model (xscaling) and the relative positions' sinusoids, a [2·max_len − 1, d_model]
 *    table that the export stores as a constant (41 MB at full size: part of the file's bytes);
 *  - per layer: ½·FF, rel-pos MHSA (Transformer-XL biases u and v, linear_pos, the rel-shift), the
 *    conv module (pointwise → GLU → depthwise k=9 → BatchNorm → Swish → pointwise), ½·FF, LayerNorm.
 */
import { DT, type GraphBuilder } from './onnx-graph';
import { conv1d, layerNorm, linear, swish } from './layers';

export interface FastConformerShape {
  featDim: number;
  dModel: number;
  layers: number;
  heads: number;
  ffExpansion: number;
  convKernel: number;
  subsamplingChannels: number;
  /** Each stage halves time and frequency: 3 stages is the 8× of parakeet. */
  subsamplingStages: number;
  /** Rows of the relative-position table are 2·posEmbMaxLen − 1: the longest input it covers, in encoder frames. */
  posEmbMaxLen: number;
  xscaling: boolean;
}

const FORM = 'quint8' as const;
/** Slice's "to the end". */
const END = Number.MAX_SAFE_INTEGER;

/**
 * x [N, inCh, H, W] → [N, outCh, H', W']: a dynamically quantized Conv2d with uint8 weights (layers.ts
 * has the 1-D form only). The weight scale gives a 1/√fan-in spread, fan-in = inCh/groups · k².
 */
function conv2d(g: GraphBuilder, x: string, inCh: number, outCh: number, kernel: number, opts: { stride: number; groups?: number }): string {
  const groups = opts.groups ?? 1;
  const dims = [outCh, inCh / groups, kernel, kernel];
  const n = dims.reduce((a, b) => a * b, 1);
  const w = g.tensor('conv2dq', { dims, type: DT.UINT8, data: g.rng.bytes(n) });
  const zero = g.tensor('zp', { dims: [], type: DT.UINT8, data: Uint8Array.of(128) }, false);
  const wScale = g.scalar(1 / (73 * Math.sqrt((inCh / groups) * kernel * kernel)));
  const pad = Math.floor(kernel / 2);
  const attrs = { kernel_shape: [kernel, kernel], strides: [opts.stride, opts.stride], pads: [pad, pad, pad, pad], group: groups, dilations: [1, 1] };
  const [xq, xScale, xZero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
  const acc = g.op('ConvInteger', [xq!, w, xZero!, zero], attrs);
  const y = g.op('Mul', [g.op('Cast', [acc], { to: DT.FLOAT }), g.op('Mul', [xScale!, wScale])]);
  return g.op('Add', [y, g.param('cb', [outCh, 1, 1], 0.02)]);
}

/** A stride-2, kernel-3, pad-1 convolution's output length. */
const halve = (n: number) => Math.floor((n - 1) / 2) + 1;

/** audio_signal [B, feat, T] → [B, T', d_model]. */
function subsampling(g: GraphBuilder, audio: string, s: FastConformerShape): string {
  const c = s.subsamplingChannels;
  // NeMo transposes to [B, T, feat] and convolves it as a one-channel image.
  let x = g.op('Unsqueeze', [g.op('Transpose', [audio], { perm: [0, 2, 1] }), g.ints([1])]);
  x = g.op('Relu', [conv2d(g, x, 1, c, 3, { stride: 2 })]);
  let freq = halve(s.featDim);
  for (let stage = 1; stage < s.subsamplingStages; stage++) {
    x = conv2d(g, x, c, c, 3, { stride: 2, groups: c });
    x = g.op('Relu', [conv2d(g, x, c, c, 1, { stride: 1 })]);
    freq = halve(freq);
  }
  // [B, C, T', F'] → [B, T', C·F'] → d_model
  x = g.op('Reshape', [g.op('Transpose', [x], { perm: [0, 2, 1, 3] }), g.ints([0, 0, c * freq])]);
  return linear(g, x, c * freq, s.dModel, { form: FORM });
}

/** The sinusoids of relative positions max_len − 1 … −(max_len − 1), as NeMo's RelPositionalEncoding builds them. */
function relativePositionTable(maxLen: number, d: number): Float32Array {
  const rows = 2 * maxLen - 1;
  const pe = new Float32Array(rows * d);
  for (let r = 0; r < rows; r++) {
    const pos = maxLen - 1 - r;
    for (let i = 0; i < d; i += 2) {
      const angle = pos * Math.exp(-(i * Math.log(10000)) / d);
      pe[r * d + i] = Math.sin(angle);
      if (i + 1 < d) pe[r * d + i + 1] = Math.cos(angle);
    }
  }
  return pe;
}

/** What every layer shares: the positions, the padding masks, and T' as a [1] tensor for the reshapes. */
interface LayerContext {
  pos: string;
  attBias: string;
  convMask: string;
  frames: string;
}

/** Feed-forward: Linear(d, 4d) → Swish → Linear(4d, d). */
function feedForward(g: GraphBuilder, x: string, s: FastConformerShape): string {
  const hidden = s.dModel * s.ffExpansion;
  return linear(g, swish(g, linear(g, x, s.dModel, hidden, { form: FORM })), hidden, s.dModel, { form: FORM });
}

/**
 * Transformer-XL's shift: scores against positions [B, H, T, 2T−1] → against keys [B, H, T, T], by
 * padding a column, viewing as [2T, T], dropping the first row and viewing back.
 */
function relShift(g: GraphBuilder, x: string, frames: string): string {
  const padded = g.op('Pad', [x, g.ints([0, 0, 0, 1, 0, 0, 0, 0])]);
  const tall = g.op('Reshape', [padded, g.op('Concat', [g.ints([0, 0, -1]), frames], { axis: 0 })]);
  const dropped = g.op('Slice', [tall, g.ints([1]), g.ints([END]), g.ints([2])]);
  const back = g.op('Reshape', [dropped, g.op('Concat', [g.ints([0, 0]), frames, g.ints([-1])], { axis: 0 })]);
  return g.op('Slice', [back, g.ints([0]), frames, g.ints([3])]);
}

/** Relative-position multi-head self-attention (NeMo's RelPositionMultiHeadAttention, untied biases). */
function selfAttention(g: GraphBuilder, x: string, ctx: LayerContext, s: FastConformerShape): string {
  const d = s.dModel;
  const dk = d / s.heads;
  const split = (v: string) => g.op('Reshape', [v, g.ints([0, 0, s.heads, dk])]); // [B, T, H, dk]
  const q = split(linear(g, x, d, d, { form: FORM }));
  const k = split(linear(g, x, d, d, { form: FORM }));
  const v = split(linear(g, x, d, d, { form: FORM }));
  const heads = (t: string) => g.op('Transpose', [t], { perm: [0, 2, 1, 3] });
  const qu = heads(g.op('Add', [q, g.param('pos_bias_u', [s.heads, dk], 0.02)]));
  const qv = heads(g.op('Add', [q, g.param('pos_bias_v', [s.heads, dk], 0.02)]));
  const keysT = g.op('Transpose', [k], { perm: [0, 2, 3, 1] }); // [B, H, dk, T]
  const posT = g.op('Transpose', [split(linear(g, ctx.pos, d, d, { form: FORM, bias: false }))], { perm: [0, 2, 3, 1] }); // [1, H, dk, 2T−1]
  const content = g.op('MatMul', [qu, keysT]);
  const position = relShift(g, g.op('MatMul', [qv, posT]), ctx.frames);
  const scores = g.op('Add', [g.op('Mul', [g.op('Add', [content, position]), g.scalar(1 / Math.sqrt(dk))]), ctx.attBias]);
  const context = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), heads(v)]); // [B, H, T, dk]
  const merged = g.op('Reshape', [heads(context), g.ints([0, 0, d])]);
  return linear(g, merged, d, d, { form: FORM });
}

/** Convolution module: pointwise (d→2d) → GLU → depthwise k → BatchNorm → Swish → pointwise (d→d). */
function convolutionModule(g: GraphBuilder, x: string, ctx: LayerContext, s: FastConformerShape): string {
  const d = s.dModel;
  let y = conv1d(g, g.op('Transpose', [x], { perm: [0, 2, 1] }), d, 2 * d, 1, { form: FORM });
  const [a, gate] = g.node('Split', [y], { axis: 1 }, 2);
  y = g.op('Mul', [g.op('Mul', [a!, g.op('Sigmoid', [gate!])]), ctx.convMask]);
  y = conv1d(g, y, d, d, s.convKernel, { form: FORM, groups: d });
  // torch's ONNX export folds this norm into the depthwise convolution; kept as its own node (one
  // pass over [d, T']) as the config has it. Running statistics are buffers, not parameters.
  const mean = g.tensor('bn_mean', { dims: [d], type: DT.FLOAT, data: new Float32Array(d) }, false);
  const variance = g.tensor('bn_var', { dims: [d], type: DT.FLOAT, data: new Float32Array(d).fill(1) }, false);
  y = g.op('BatchNormalization', [y, g.filled('bn_w', [d], 1), g.filled('bn_b', [d], 0), mean, variance], { epsilon: { f: 1e-5 } });
  y = conv1d(g, swish(g, y), d, d, 1, { form: FORM });
  return g.op('Transpose', [y], { perm: [0, 2, 1] });
}

/**
 * The gain of the norm before self-attention. Random attention weights give near-uniform attention,
 * whose output (the mean of the values over all frames) is the same for every frame; at full
 * strength, 24 such layers leave every encoder frame the same vector (cosine 0.99998), so the joiner
 * could not tell frames apart and greedy decoding would emit nothing or a piece at every step. A
 * trained norm's gain of 0.1 keeps the frames apart; it changes values, not the work.
 */
const ATTENTION_NORM_GAIN = 0.1;

function scaledLayerNorm(g: GraphBuilder, x: string, dim: number, gain: number): string {
  return g.op('LayerNormalization', [x, g.filled('ln_w', [dim], gain), g.filled('ln_b', [dim], 0)], { axis: -1, epsilon: { f: 1e-5 } });
}

function conformerLayer(g: GraphBuilder, x: string, ctx: LayerContext, s: FastConformerShape): string {
  const half = g.scalar(0.5);
  let r = g.op('Add', [x, g.op('Mul', [feedForward(g, layerNorm(g, x, s.dModel), s), half])]);
  r = g.op('Add', [r, selfAttention(g, scaledLayerNorm(g, r, s.dModel, ATTENTION_NORM_GAIN), ctx, s)]);
  r = g.op('Add', [r, convolutionModule(g, layerNorm(g, r, s.dModel), ctx, s)]);
  r = g.op('Add', [r, g.op('Mul', [feedForward(g, layerNorm(g, r, s.dModel), s), half])]);
  return layerNorm(g, r, s.dModel);
}

/** Adds the whole encoder to `g`: inputs audio_signal and length, outputs outputs and encoded_lengths. */
export function fastConformerEncoder(g: GraphBuilder, s: FastConformerShape): void {
  const audio = g.input('audio_signal', DT.FLOAT, ['B', s.featDim, 'T']);
  const length = g.input('length', DT.INT64, ['B']);
  let x = subsampling(g, audio, s);

  // Each stage: floor((L + 2·1 − 3) / 2) + 1 = floor((L + 1) / 2).
  let lengths = length;
  for (let stage = 0; stage < s.subsamplingStages; stage++) lengths = g.op('Div', [g.op('Add', [lengths, g.ints([1])]), g.ints([2])]);
  g.op('Identity', [lengths], {}, 'encoded_lengths');

  const frames = g.op('Shape', [x], { start: 1, end: 2 }); // [1]: T'
  // Padding masks from the lengths (no-ops for one full-length stream, as in the exported graph).
  const steps = g.op('Range', [g.ints([0], []), g.op('Squeeze', [frames]), g.ints([1], [])]);
  const valid = g.op('Less', [g.op('Unsqueeze', [steps, g.ints([0])]), g.op('Unsqueeze', [lengths, g.ints([1])])]); // [B, T']
  const attBias = g.op('Where', [g.op('Unsqueeze', [valid, g.ints([1, 2])]), g.scalar(0), g.scalar(-10000)]); // [B, 1, 1, T']
  const convMask = g.op('Cast', [g.op('Unsqueeze', [valid, g.ints([1])])], { to: DT.FLOAT }); // [B, 1, T']

  if (s.xscaling) x = g.op('Mul', [x, g.scalar(Math.sqrt(s.dModel))]);
  const table = g.tensor('pe', { dims: [1, 2 * s.posEmbMaxLen - 1, s.dModel], type: DT.FLOAT, data: relativePositionTable(s.posEmbMaxLen, s.dModel) }, false);
  // Rows max_len − T' … max_len + T' − 2: relative positions T'−1 … −(T'−1).
  const first = g.op('Sub', [g.ints([s.posEmbMaxLen]), frames]);
  const pos = g.op('Slice', [table, first, g.op('Add', [frames, g.ints([s.posEmbMaxLen - 1])]), g.ints([1])]);

  const ctx: LayerContext = { pos, attBias, convMask, frames };
  for (let i = 0; i < s.layers; i++) x = conformerLayer(g, x, ctx, s);
  g.op('Transpose', [x], { perm: [0, 2, 1] }, 'outputs');
  g.output('outputs', DT.FLOAT, ['B', s.dModel, 'T_out']);
  g.output('encoded_lengths', DT.INT64, ['B']);
}
