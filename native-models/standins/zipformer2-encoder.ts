/**
 * The streaming Zipformer2 encoder of icefall's zipformer recipe (causal, chunk-wise), as
 * export-onnx-streaming.py writes it, on a GraphBuilder: encoder_embed (Conv2dSubsampling with its
 * ConvNeXt and cached left pad), six stacks of Zipformer2EncoderLayer at their downsampling factors,
 * the full-dim output, the output downsampling by 2 and the joiner's encoder_proj. Each layer runs its
 * real modules over its real caches, so a chunk costs what the published encoder's chunk costs.
 *
 * Layout inside the stacks is icefall's (time, batch, channels). Every weight MatMul is dynamically
 * quantized with int8 weights (quantize_dynamic, op_types_to_quantize=["MatMul"], QInt8); the Convs
 * stay float32, as in the published .int8.onnx.
 */
import type { ZipformerShape } from '../../test/layouts/zipformer2-transducer';
import { DT, type GraphBuilder } from './onnx-graph';
import { linear } from './layers';

/** What the encoder needs beyond the metadata's shape (icefall's train.py options). */
export interface Zipformer2Config {
  shape: ZipformerShape;
  feedforwardDims: number[];
  posDim: number;
  posHeadDim: number;
  /** Conv2dSubsampling's layer1/2/3 channels (8, 32, 128 in icefall). */
  embedChannels: [number, number, number];
}

const FEATURE_DIM = 80;
/** Encoder frames (50 Hz, after encoder_embed) of one chunk, and the feature frames it reads. */
const chunkFrames = (c: Zipformer2Config) => c.shape.chunkSize;
export const featureFrames = (c: Zipformer2Config) => 2 * c.shape.chunkSize + 13;
/** The ConvNeXt's cached left pad: (kernel 7 - 1) / 2 frames. */
const CONVNEXT_PAD = 3;

// ---------------------------------------------------------------- small graph helpers

const scalars = new WeakMap<GraphBuilder, Map<number, string>>();
/** A float scalar constant, one per value per graph. */
function k(g: GraphBuilder, v: number): string {
  let m = scalars.get(g);
  if (!m) scalars.set(g, (m = new Map()));
  let name = m.get(v);
  if (!name) m.set(v, (name = g.scalar(v)));
  return name;
}

export function slice(g: GraphBuilder, x: string, axis: number, start: number, end: number, step = 1): string {
  const inputs = [x, g.ints([start]), g.ints([end]), g.ints([axis])];
  return g.op('Slice', step === 1 ? inputs : [...inputs, g.ints([step])]);
}
const reshape = (g: GraphBuilder, x: string, dims: number[]) => g.op('Reshape', [x, g.ints(dims)]);
const transpose = (g: GraphBuilder, x: string, perm: number[]) => g.op('Transpose', [x], { perm });
const add = (g: GraphBuilder, a: string, b: string) => g.op('Add', [a, b]);
const mul = (g: GraphBuilder, a: string, b: string) => g.op('Mul', [a, b]);

/** A trained-looking parameter: mean plus N(0, std²), drawn fresh. */
function around(g: GraphBuilder, prefix: string, dims: number[], mean: number, std: number): string {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = g.rng.normal(n, std).map((v) => v + mean);
  return g.tensor(prefix, { dims, type: DT.FLOAT, data });
}

/** log(1 + exp(x - offset)) written as the export's logaddexp_onnx: max + log1p(exp(-|d|)). */
function logAddExpZero(g: GraphBuilder, x: string, offset: number): string {
  const d = g.op('Sub', [x, k(g, offset)]);
  const tail = g.op('Log', [add(g, g.op('Exp', [g.op('Neg', [g.op('Abs', [d])])]), k(g, 1))]);
  return add(g, g.op('Max', [d, k(g, 0)]), tail);
}
/** SwooshL(x) = log(1 + e^(x-4)) - 0.08x - 0.035; SwooshR(x) = log(1 + e^(x-1)) - 0.08x - 0.313261687. */
export const swooshL = (g: GraphBuilder, x: string) => g.op('Sub', [g.op('Sub', [logAddExpZero(g, x, 4), mul(g, x, k(g, 0.08))]), k(g, 0.035)]);
export const swooshR = (g: GraphBuilder, x: string) =>
  g.op('Sub', [g.op('Sub', [logAddExpZero(g, x, 1), mul(g, x, k(g, 0.08))]), k(g, 0.313261687)]);

/** BiasNorm: x · mean((x - bias)²)^-½ · exp(log_scale), over channels (icefall's LayerNorm stand-in). */
export function biasNorm(g: GraphBuilder, x: string, dim: number): string {
  const d = g.op('Sub', [x, g.param('bn_bias', [dim], 0.05)]);
  const mean = g.op('ReduceMean', [mul(g, d, d)], { axes: [-1], keepdims: 1 });
  const scale = mul(g, g.op('Pow', [mean, k(g, -0.5)]), g.op('Exp', [around(g, 'bn_log_scale', [], 1, 0.1)]));
  return mul(g, x, scale);
}

/** BypassModule: orig + (x - orig) · bypass_scale (per channel, about 0.5 once trained). */
function bypass(g: GraphBuilder, orig: string, x: string, dim: number): string {
  return add(g, orig, mul(g, g.op('Sub', [x, orig]), around(g, 'bypass_scale', [dim], 0.5, 0.1)));
}

/** A float32 Conv with bias (encoder_embed and the depthwise convs are not quantized). */
function conv(g: GraphBuilder, x: string, w: number[], attrs: { strides?: number[]; pads?: number[]; group?: number }): string {
  const rank = w.length - 2;
  const fanIn = w.slice(1).reduce((a, b) => a * b, 1);
  const weight = g.param('conv_w', w, 1 / Math.sqrt(fanIn));
  return g.op('Conv', [x, weight, g.param('conv_b', [w[0]!], 0.05)], {
    kernel_shape: w.slice(2),
    strides: attrs.strides ?? new Array<number>(rank).fill(1),
    pads: attrs.pads ?? new Array<number>(2 * rank).fill(0),
    group: attrs.group ?? 1,
  });
}

/**
 * A Linear as quantize_dynamic writes it (DynamicQuantizeLinear, MatMulInteger with int8 weights,
 * the scales multiplied back, then the bias), like layers.ts's qint8 linear but with a gain on the
 * weights' spread: a trained Zipformer keeps its attention logits moderate and its residual branches
 * smaller than the stream (icefall initialises those projections scaled down). Weights at a plain
 * 1/sqrt(fan-in) spread saturate every softmax and make the full-size encoder chaotic, a 1e-3 change
 * of the features changing its output completely.
 */
function qlinear(g: GraphBuilder, x: string, i: number, o: number, gain = 1): string {
  const w = g.tensor('wq', { dims: [i, o], type: DT.INT8, data: g.rng.int8(i * o) });
  const zero = g.tensor('zp', { dims: [], type: DT.INT8, data: new Int8Array(1) }, false);
  // Uniform int8 over ±127 has std 73.3.
  const scale = g.scalar(gain / (73.3 * Math.sqrt(i)));
  const [q, qScale, qZero] = g.node('DynamicQuantizeLinear', [x], {}, 3);
  const acc = g.op('Cast', [g.op('MatMulInteger', [q!, w, qZero!, zero])], { to: DT.FLOAT });
  return add(g, mul(g, acc, mul(g, qScale!, scale)), g.param('b', [o], 0.02));
}
/** Gains (see qlinear): the attention in_proj, and the projections back into the residual stream. */
const ATTENTION_GAIN = 0.25;
const BRANCH_GAIN = 0.3;

// ---------------------------------------------------------------- encoder_embed

/** Conv2dSubsampling.streaming_forward: x [N, T, 80] → [N, chunk, dim0], with the ConvNeXt's cache. */
function encoderEmbed(g: GraphBuilder, c: Zipformer2Config, x: string, cachedPad: string): { out: string; newPad: string } {
  const [c1, c2, c3] = c.embedChannels;
  let h = g.op('Unsqueeze', [x, g.ints([1])]); // [N, 1, T, 80]
  h = swooshR(g, conv(g, h, [c1, 1, 3, 3], { pads: [0, 1, 0, 1] }));
  h = swooshR(g, conv(g, h, [c2, c1, 3, 3], { strides: [2, 2] }));
  h = swooshR(g, conv(g, h, [c3, c2, 3, 3], { strides: [1, 2] })); // [N, c3, chunk + 3, 19]
  // ConvNeXt: the 7×7 depthwise conv sees 3 cached frames on the left and 3 frames of right context.
  const t = chunkFrames(c);
  const residual = slice(g, h, 2, 0, t);
  const padded = g.op('Concat', [cachedPad, h], { axis: 2 });
  const newPad = slice(g, padded, 2, t, t + CONVNEXT_PAD);
  let y = conv(g, padded, [c3, 1, 7, 7], { pads: [0, 3, 0, 3], group: c3 });
  y = conv(g, swooshL(g, conv(g, y, [3 * c3, c3, 1, 1], {})), [c3, 3 * c3, 1, 1], {});
  y = add(g, residual, y);
  const width = Math.floor((Math.floor((FEATURE_DIM - 1) / 2) - 1) / 2);
  const flat = reshape(g, transpose(g, y, [0, 2, 1, 3]), [0, 0, c3 * width]);
  const dim = c.shape.encoderDims[0]!;
  return { out: biasNorm(g, qlinear(g, flat, c3 * width, dim), dim), newPad };
}

// ---------------------------------------------------------------- one Zipformer2EncoderLayer

/** One stack's sizes, at its own frame rate. */
interface Stack {
  dim: number;
  heads: number;
  ff: number;
  kernel: number;
  /** Frames of this chunk and of cached left context, at this stack's rate. */
  t: number;
  left: number;
  qd: number;
  vd: number;
  pd: number;
  posDim: number;
  /** [1, left + 2t - 1, posDim], the CompactRelPositionalEncoding rows this chunk uses. */
  posEmb: string;
  /** [N, 1, left + t] bool: cached frames not yet filled are masked. */
  mask: string;
}

/** The caches of one layer, in sherpa's order. */
export const CACHE_KINDS = ['cached_key', 'cached_nonlin_attn', 'cached_val1', 'cached_val2', 'cached_conv1', 'cached_conv2'] as const;
type Caches = Record<(typeof CACHE_KINDS)[number], string>;

function feedForward(g: GraphBuilder, x: string, dim: number, hidden: number): string {
  return qlinear(g, swooshL(g, qlinear(g, x, dim, hidden)), hidden, dim, BRANCH_GAIN);
}

/** RelPositionMultiheadAttentionWeights.streaming_forward → attention weights [heads, N, t, left + t]. */
function attentionWeights(g: GraphBuilder, s: Stack, x: string, cachedKey: string): { weights: string; newKey: string } {
  const { heads, qd, pd, t, left } = s;
  const proj = qlinear(g, x, s.dim, (2 * qd + pd) * heads, ATTENTION_GAIN);
  const q = slice(g, proj, 2, 0, qd * heads);
  const p = slice(g, proj, 2, 2 * qd * heads, (2 * qd + pd) * heads);
  const keys = g.op('Concat', [cachedKey, slice(g, proj, 2, qd * heads, 2 * qd * heads)], { axis: 0 });
  const newKey = slice(g, keys, 0, t, t + left);
  const qh = transpose(g, reshape(g, q, [0, 0, heads, qd]), [2, 1, 0, 3]); // [h, N, t, qd]
  const kh = transpose(g, reshape(g, keys, [0, 0, heads, qd]), [2, 1, 3, 0]); // [h, N, qd, left + t]
  const scores = g.op('MatMul', [qh, kh]);
  // Relative positions: the positional encoding projected per head, scored by p, then shifted so
  // column j of query i reads offset (t - 1 - i) + j (icefall does this with a gather).
  const P = left + 2 * t - 1;
  const posProj = linear(g, s.posEmb, s.posDim, heads * pd, { bias: false });
  const pos = transpose(g, reshape(g, posProj, [1, P, heads, pd]), [2, 0, 3, 1]); // [h, 1, pd, P]
  const ph = transpose(g, reshape(g, p, [0, 0, heads, pd]), [2, 1, 0, 3]);
  const posScores = g.op('MatMul', [ph, pos]); // [h, N, t, P]
  const flat = slice(g, reshape(g, posScores, [heads, -1, t * P]), 2, t - 1, t - 1 + t * (P - 1));
  const shifted = slice(g, reshape(g, flat, [heads, -1, t, P - 1]), 3, 0, left + t);
  const masked = g.op('Where', [s.mask, k(g, -1000), add(g, scores, shifted)]);
  return { weights: g.op('Softmax', [masked], { axis: -1 }), newKey };
}

/** NonlinAttention: tanh-gated values through the first head's attention weights, over cached frames. */
function nonlinAttention(g: GraphBuilder, s: Stack, x: string, weights: string, cached: string): { out: string; cache: string } {
  const hidden = (3 * s.dim) / 4;
  const proj = qlinear(g, x, s.dim, 3 * hidden);
  const gate = g.op('Tanh', [slice(g, proj, 2, 0, hidden)]);
  const values = mul(g, slice(g, proj, 2, hidden, 2 * hidden), gate);
  const y = slice(g, proj, 2, 2 * hidden, 3 * hidden);
  const v = transpose(g, reshape(g, values, [0, 0, 1, hidden]), [2, 1, 0, 3]); // [1, N, t, hidden]
  const padded = g.op('Concat', [cached, v], { axis: 2 });
  const cache = slice(g, padded, 2, s.t, s.t + s.left);
  const attended = g.op('MatMul', [slice(g, weights, 0, 0, 1), padded]);
  const back = reshape(g, transpose(g, attended, [2, 1, 0, 3]), [0, 0, hidden]);
  return { out: qlinear(g, mul(g, back, y), hidden, s.dim, BRANCH_GAIN), cache };
}

/** SelfAttention: values (cached over the left context) weighted by the shared attention weights. */
function selfAttention(g: GraphBuilder, s: Stack, x: string, weights: string, cached: string): { out: string; cache: string } {
  const vdim = s.vd * s.heads;
  const values = g.op('Concat', [cached, qlinear(g, x, s.dim, vdim)], { axis: 0 });
  const cache = slice(g, values, 0, s.t, s.t + s.left);
  const vh = transpose(g, reshape(g, values, [0, 0, s.heads, s.vd]), [2, 1, 0, 3]); // [h, N, left + t, vd]
  const attended = reshape(g, transpose(g, g.op('MatMul', [weights, vh]), [2, 1, 0, 3]), [0, 0, vdim]);
  return { out: qlinear(g, attended, vdim, s.dim, BRANCH_GAIN), cache };
}

/**
 * ConvolutionModule with ChunkCausalDepthwiseConv1d: a GLU, then a causal depthwise conv over the
 * cached left frames plus a chunk-wise one scaled at the chunk edges, then SwooshR and the out proj.
 */
function convolution(g: GraphBuilder, s: Stack, x: string, cached: string): { out: string; cache: string } {
  const { dim, kernel, t } = s;
  const proj = qlinear(g, x, dim, 2 * dim);
  const glu = mul(g, slice(g, proj, 2, 0, dim), g.op('Sigmoid', [slice(g, proj, 2, dim, 2 * dim)]));
  const chunk = transpose(g, glu, [1, 2, 0]); // [N, dim, t]
  const leftPad = Math.floor(kernel / 2);
  const padded = g.op('Concat', [cached, chunk], { axis: 2 });
  const cache = slice(g, padded, 2, t, t + leftPad);
  const causal = conv(g, padded, [dim, 1, (kernel + 1) / 2], { group: dim });
  const chunkwise = conv(g, chunk, [dim, 1, kernel], { group: dim, pads: [leftPad, leftPad] });
  // chunkwise_conv_scale [2, dim, kernel]: 1 + left edge's first t taps + right edge's last t.
  const edges = g.param('chunk_scale', [2, dim, kernel], 0.1);
  const scale = add(g, k(g, 1), add(g, reshape(g, slice(g, slice(g, edges, 0, 0, 1), 2, 0, t), [dim, t]), reshape(g, slice(g, slice(g, edges, 0, 1, 2), 2, kernel - t, kernel), [dim, t])));
  const depthwise = add(g, mul(g, chunkwise, scale), causal);
  return { out: qlinear(g, swooshR(g, transpose(g, depthwise, [2, 0, 1])), dim, dim, BRANCH_GAIN), cache };
}

/** Zipformer2EncoderLayer.streaming_forward: x [t, N, dim] and its six caches. */
function encoderLayer(g: GraphBuilder, s: Stack, x: string, caches: Caches): { out: string; caches: Caches } {
  const orig = x;
  const attn = attentionWeights(g, s, x, caches.cached_key);
  x = add(g, x, feedForward(g, x, s.dim, Math.floor((s.ff * 3) / 4)));
  const na = nonlinAttention(g, s, x, attn.weights, caches.cached_nonlin_attn);
  x = add(g, x, na.out);
  const sa1 = selfAttention(g, s, x, attn.weights, caches.cached_val1);
  x = add(g, x, sa1.out);
  const conv1 = convolution(g, s, x, caches.cached_conv1);
  x = add(g, x, conv1.out);
  x = add(g, x, feedForward(g, x, s.dim, s.ff));
  x = bypass(g, orig, x, s.dim);
  const sa2 = selfAttention(g, s, x, attn.weights, caches.cached_val2);
  x = add(g, x, sa2.out);
  const conv2 = convolution(g, s, x, caches.cached_conv2);
  x = add(g, x, conv2.out);
  x = add(g, x, feedForward(g, x, s.dim, Math.floor((s.ff * 5) / 4)));
  x = bypass(g, orig, biasNorm(g, x, s.dim), s.dim);
  return {
    out: x,
    caches: { cached_key: attn.newKey, cached_nonlin_attn: na.cache, cached_val1: sa1.cache, cached_val2: sa2.cache, cached_conv1: conv1.cache, cached_conv2: conv2.cache },
  };
}

/** CompactRelPositionalEncoding's rows for relative offsets -(n - 1 - (t - 1)) … t - 1 (n = left + 2t - 1). */
function compactRelPositions(g: GraphBuilder, dim: number, left: number, t: number): string {
  const n = left + 2 * t - 1;
  const data = new Float32Array(n * dim);
  const compression = Math.sqrt(dim);
  const lengthScale = dim / (2 * Math.PI);
  for (let r = 0; r < n; r++) {
    const x = r - (left + t - 1);
    const compressed = compression * Math.sign(x) * (Math.log(Math.abs(x) + compression) - Math.log(compression));
    const angle = Math.atan(compressed / lengthScale);
    for (let f = 0; f < dim / 2; f++) {
      data[r * dim + 2 * f] = Math.cos(angle * (f + 1));
      data[r * dim + 2 * f + 1] = Math.sin(angle * (f + 1));
    }
    data[r * dim + dim - 1] = 1;
  }
  return g.tensor('pos_emb', { dims: [1, n, dim], type: DT.FLOAT, data }, false);
}

// ---------------------------------------------------------------- the whole encoder

export interface EncoderIO {
  /** The cache inputs in sherpa's order (the outputs are these with new_ in front). */
  caches: { name: string; shape: (number | string)[]; type: number }[];
}

/** Builds the encoder graph with its inputs and outputs on `g`. */
export function buildEncoder(g: GraphBuilder, c: Zipformer2Config): EncoderIO {
  const s = c.shape;
  const t50 = chunkFrames(c);
  const left50 = s.leftContextFrames;
  const io: EncoderIO['caches'] = [];
  const x = g.input('x', DT.FLOAT, ['N', featureFrames(c), FEATURE_DIM]);
  // The cache inputs, layer by layer (declared first so the graph's inputs are in sherpa's order).
  const layerCaches: Caches[] = [];
  s.encoderDims.forEach((dim, i) => {
    const left = left50 / s.downsampling[i]!;
    const shapes: Record<(typeof CACHE_KINDS)[number], (number | string)[]> = {
      cached_key: [left, 'N', s.queryHeadDim * s.numHeads[i]!],
      cached_nonlin_attn: [1, 'N', left, (3 * dim) / 4],
      cached_val1: [left, 'N', s.valueHeadDim * s.numHeads[i]!],
      cached_val2: [left, 'N', s.valueHeadDim * s.numHeads[i]!],
      cached_conv1: ['N', dim, Math.floor(s.cnnModuleKernels[i]! / 2)],
      cached_conv2: ['N', dim, Math.floor(s.cnnModuleKernels[i]! / 2)],
    };
    for (let j = 0; j < s.numEncoderLayers[i]!; j++) {
      const caches = {} as Caches;
      for (const kind of CACHE_KINDS) {
        const name = `${kind}_${layerCaches.length}`;
        caches[kind] = g.input(name, DT.FLOAT, shapes[kind]);
        io.push({ name, shape: shapes[kind], type: DT.FLOAT });
      }
      layerCaches.push(caches);
    }
  });
  const width = Math.floor((Math.floor((FEATURE_DIM - 1) / 2) - 1) / 2);
  const embedShape = ['N', c.embedChannels[2], CONVNEXT_PAD, width];
  const embedStates = g.input('embed_states', DT.FLOAT, embedShape);
  const processedLens = g.input('processed_lens', DT.INT64, ['N']);
  io.push({ name: 'embed_states', shape: embedShape, type: DT.FLOAT }, { name: 'processed_lens', shape: ['N'], type: DT.INT64 });

  const embed = encoderEmbed(g, c, x, embedStates);
  // Key padding mask at 50 Hz over [left context, chunk]: cached frame j is empty while
  // processed_lens <= left - 1 - j; the chunk's own frames never are.
  const offsets = Array.from({ length: left50 + t50 }, (_, j) => left50 - 1 - j);
  const mask50 = g.op('LessOrEqual', [g.op('Unsqueeze', [processedLens, g.ints([1])]), g.ints(offsets, [1, offsets.length])]);
  let h = transpose(g, embed.out, [1, 0, 2]); // [t, N, dim]
  let curDim = s.encoderDims[0]!;
  const stackOut: string[] = [];
  const newCaches: string[] = [];
  let layer = 0;
  s.encoderDims.forEach((dim, i) => {
    const ds = s.downsampling[i]!;
    // convert_num_channels: truncate, or pad with zeros.
    if (dim < curDim) h = slice(g, h, 2, 0, dim);
    else if (dim > curDim) h = g.op('Pad', [h, g.ints([0, 0, 0, 0, 0, dim - curDim])]);
    curDim = dim;
    const st: Stack = {
      dim,
      heads: s.numHeads[i]!,
      ff: c.feedforwardDims[i]!,
      kernel: s.cnnModuleKernels[i]!,
      t: t50 / ds,
      left: left50 / ds,
      qd: s.queryHeadDim,
      vd: s.valueHeadDim,
      pd: c.posHeadDim,
      posDim: c.posDim,
      posEmb: compactRelPositions(g, c.posDim, left50 / ds, t50 / ds),
      mask: g.op('Unsqueeze', [slice(g, mask50, 1, 0, left50 + t50, ds), g.ints([1])]),
    };
    const stackIn = h;
    let y = h;
    if (ds > 1) {
      // SimpleDownsample: a softmax-weighted sum of each ds consecutive frames.
      const w = reshape(g, g.op('Softmax', [g.param('ds_bias', [ds], 0.5)], { axis: 0 }), [ds, 1, 1]);
      y = g.op('ReduceSum', [mul(g, reshape(g, y, [st.t, ds, -1, dim]), w), g.ints([1])], { keepdims: 0 });
    }
    for (let j = 0; j < s.numEncoderLayers[i]!; j++, layer++) {
      const r = encoderLayer(g, st, y, layerCaches[layer]!);
      y = r.out;
      for (const kind of CACHE_KINDS) newCaches.push(r.caches[kind]);
    }
    if (ds > 1) {
      // SimpleUpsample (repeat each frame), then the out_combiner bypass around the whole stack.
      const up = reshape(g, g.op('Expand', [g.op('Unsqueeze', [y, g.ints([1])]), g.ints([1, ds, 1, 1])]), [t50, -1, dim]);
      y = bypass(g, stackIn, up, dim);
    }
    h = y;
    stackOut.push(y);
  });
  // _get_full_dim_output: the last stack's channels, then the wider ones from earlier stacks.
  const pieces = [stackOut[stackOut.length - 1]!];
  let have = s.encoderDims[s.encoderDims.length - 1]!;
  for (let i = s.encoderDims.length - 2; i >= 0; i--) {
    const d = s.encoderDims[i]!;
    if (d > have) pieces.push(slice(g, stackOut[i]!, 2, have, d));
    have = Math.max(have, d);
  }
  const full = pieces.length > 1 ? g.op('Concat', pieces, { axis: 2 }) : pieces[0]!;
  // Output downsampling by 2 (25 Hz), then the joiner's encoder_proj.
  const w = reshape(g, g.op('Softmax', [g.param('ds_bias', [2], 0.5)], { axis: 0 }), [2, 1, 1]);
  const out25 = g.op('ReduceSum', [mul(g, reshape(g, full, [t50 / 2, 2, -1, have]), w), g.ints([1])], { keepdims: 0 });
  const projected = qlinear(g, transpose(g, out25, [1, 0, 2]), have, s.joinerDim);
  g.op('Identity', [projected], {}, 'encoder_out');
  g.output('encoder_out', DT.FLOAT, ['N', t50 / 2, s.joinerDim]);
  // New caches, in the inputs' order.
  const newOuts = [...newCaches, embed.newPad, g.op('Add', [processedLens, g.tensor('c', { dims: [], type: DT.INT64, data: BigInt64Array.of(BigInt(t50)) }, false)])];
  newOuts.forEach((v, i) => {
    g.op('Identity', [v], {}, `new_${io[i]!.name}`);
    g.output(`new_${io[i]!.name}`, io[i]!.type, io[i]!.shape);
  });
  return { caches: io };
}
