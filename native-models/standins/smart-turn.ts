/**
 * Real-size stand-in for Pipecat's Smart Turn v3.2 CPU model (smart-turn-v3.2-cpu.onnx): the Whisper
 * Tiny encoder (two convolutions, 400 learned positions, 4 pre-norm transformer layers of width 384
 * with 6 heads and a 1536 MLP, a final LayerNorm) cut to 8 s of input, then attention pooling over
 * time and the classifier head, a sigmoid probability out. Structure after smart_turn/train.py
 * (SmartTurnV3Model); I/O as test/layouts/onnxruntime-models.ts: input_features [batch, 80, 800] →
 * logits [batch, 1].
 *
 * Quantization as published: quantize_static in QDQ form, uint8 activations and per-channel int8
 * weights on every Conv and MatMul (op_types_to_quantize Conv, MatMul, Gemm), so each carries
 * QuantizeLinear/DequantizeLinear pairs on its inputs and output that onnxruntime fuses at load.
 * The activation scales stand in for the calibration's; the weights are random.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ModelEntry } from '../types';
import { DT, GraphBuilder } from './onnx-graph';
import { layerNorm } from './layers';
import type { StandinGenerator, StandinScale, StandinWritten } from './types';

interface SmartTurnShape {
  dim: number;
  heads: number;
  layers: number;
  mlp: number;
  /** Frames after the stride-2 conv: 800 / 2. */
  positions: number;
  poolHidden: number;
  classifier: [number, number];
}

const FULL: SmartTurnShape = { dim: 384, heads: 6, layers: 4, mlp: 1536, positions: 400, poolHidden: 256, classifier: [256, 64] };
const SMALL: SmartTurnShape = { dim: 64, heads: 2, layers: 2, mlp: 256, positions: 400, poolHidden: 32, classifier: [32, 16] };

const MEL_BANDS = 80;
const FRAMES = 800;

/** A quantized activation: QuantizeLinear to uint8 and back, per tensor (calibrated scale, zero point 128). */
class Qdq {
  private readonly done = new Map<string, string>();
  constructor(private readonly g: GraphBuilder) {}

  /** x through its one Q/DQ pair (a tensor feeding several quantized ops gets one pair, as the quantizer writes). */
  of(x: string, range = 8): string {
    let out = this.done.get(x);
    if (!out) {
      const scale = this.g.scalar(range / 127);
      const zero = this.g.tensor('zp', { dims: [], type: DT.UINT8, data: Uint8Array.of(128) }, false);
      out = this.g.op('DequantizeLinear', [this.g.op('QuantizeLinear', [x, scale, zero]), scale, zero]);
      this.done.set(x, out);
    }
    return out;
  }

  /** An int8 weight, per channel along `axis`, dequantized (a DequantizeLinear over the initializer). */
  weight(dims: number[], axis: number): string {
    const g = this.g;
    const channels = dims[axis]!;
    const fanIn = dims.reduce((a, b) => a * b, 1) / channels;
    const w = g.tensor('wq', { dims, type: DT.INT8, data: g.rng.int8(fanIn * channels) });
    // Per-channel scales around the 1/sqrt(fan-in) spread a trained layer has (uniform int8 has std 73).
    const scales = Float32Array.from(g.rng.normal(channels, 0.1), (v) => (1 + v) / (73.3 * Math.sqrt(fanIn)));
    const scale = g.tensor('wscale', { dims: [channels], type: DT.FLOAT, data: scales }, false);
    const zero = g.tensor('wzp', { dims: [channels], type: DT.INT8, data: new Int8Array(channels) }, false);
    return g.op('DequantizeLinear', [w, scale, zero], { axis });
  }
}

/** x [..., in] → [..., out]: MatMul on Q/DQ input and weight, Q/DQ output, then the float bias. */
function linear(g: GraphBuilder, q: Qdq, x: string, inDim: number, outDim: number, bias = true): string {
  const y = q.of(g.op('MatMul', [q.of(x), q.weight([inDim, outDim], 1)]));
  return bias ? g.op('Add', [y, g.param('b', [outDim], 0.02)]) : y;
}

/** GELU as the opset-18 export writes it: x · ½ · (1 + erf(x / √2)). */
function gelu(g: GraphBuilder, x: string): string {
  const erf = g.op('Erf', [g.op('Div', [x, g.scalar(Math.SQRT2)])]);
  return g.op('Mul', [g.op('Mul', [x, g.scalar(0.5)]), g.op('Add', [erf, g.scalar(1)])]);
}

/** Conv1d with per-channel int8 weights (axis 0), Q/DQ input and output, float bias, then GELU. */
function conv(g: GraphBuilder, q: Qdq, x: string, inCh: number, outCh: number, stride: number): string {
  const y = q.of(g.op('Conv', [q.of(x), q.weight([outCh, inCh, 3], 0)], { kernel_shape: [3], strides: [stride], pads: [1, 1], dilations: [1], group: 1 }));
  return gelu(g, g.op('Add', [y, g.param('cb', [outCh, 1], 0.02)]));
}

/** One WhisperEncoderLayer: pre-norm self-attention (k without bias, q scaled by head_dim^-½), pre-norm MLP. */
function encoderLayer(g: GraphBuilder, q: Qdq, x: string, s: SmartTurnShape): string {
  const { dim, heads } = s;
  const hd = dim / heads;
  const h = layerNorm(g, x, dim);
  const split = (t: string) => g.op('Transpose', [g.op('Reshape', [t, g.ints([0, 0, heads, hd])])], { perm: [0, 2, 1, 3] });
  const qh = split(g.op('Mul', [linear(g, q, h, dim, dim), g.scalar(1 / Math.sqrt(hd))]));
  const kh = g.op('Transpose', [g.op('Reshape', [linear(g, q, h, dim, dim, false), g.ints([0, 0, heads, hd])])], { perm: [0, 2, 3, 1] });
  const vh = split(linear(g, q, h, dim, dim));
  // Both attention MatMuls are quantized too: static QDQ puts pairs on activations as on weights.
  const weights = g.op('Softmax', [q.of(g.op('MatMul', [q.of(qh), q.of(kh)]), 16)], { axis: -1 });
  const attended = q.of(g.op('MatMul', [q.of(weights, 1), q.of(vh)]));
  const merged = g.op('Reshape', [g.op('Transpose', [attended], { perm: [0, 2, 1, 3] }), g.ints([0, 0, dim])]);
  x = g.op('Add', [x, linear(g, q, merged, dim, dim)]);
  const mlp = linear(g, q, gelu(g, linear(g, q, layerNorm(g, x, dim), dim, s.mlp)), s.mlp, dim);
  return g.op('Add', [x, mlp]);
}

/** Builds the model: input_features [batch, 80, 800] → logits [batch, 1], the sigmoid probability. */
function buildSmartTurn(g: GraphBuilder, s: SmartTurnShape): void {
  const q = new Qdq(g);
  const features = g.input('input_features', DT.FLOAT, ['batch_size', MEL_BANDS, FRAMES]);
  let x = conv(g, q, features, MEL_BANDS, s.dim, 1);
  x = conv(g, q, x, s.dim, s.dim, 2); // [batch, dim, 400]
  // embed_positions: a parameter of the model (sinusoids at init), stored as a float initializer.
  x = g.op('Add', [g.op('Transpose', [x], { perm: [0, 2, 1] }), g.param('embed_positions', [s.positions, s.dim], 0.5)]);
  for (let i = 0; i < s.layers; i++) x = encoderLayer(g, q, x, s);
  const hidden = layerNorm(g, x, s.dim); // [batch, 400, dim]
  // Attention pooling: a score per frame, softmax over time, the weighted sum of the frames.
  const score = linear(g, q, g.op('Tanh', [linear(g, q, hidden, s.dim, s.poolHidden)]), s.poolHidden, 1);
  const weights = g.op('Softmax', [score], { axis: 1 });
  const pooled = g.op('ReduceSum', [g.op('Mul', [hidden, weights]), g.ints([1])], { keepdims: 0 }); // [batch, dim]
  // Classifier: Linear, LayerNorm, GELU, (dropout), Linear, GELU, Linear; then the sigmoid.
  const [c1, c2] = s.classifier;
  let y = gelu(g, layerNorm(g, linear(g, q, pooled, s.dim, c1), c1));
  y = linear(g, q, gelu(g, linear(g, q, y, c1, c2)), c2, 1);
  g.op('Reshape', [g.op('Sigmoid', [y]), g.ints([-1, 1])], {}, 'logits');
  g.output('logits', DT.FLOAT, ['batch_size', 1]);
}

function writeSmartTurn(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): StandinWritten {
  const spec = entry.engine;
  const name = spec.engine === 'smart-turn' ? spec.model : entry.files.find((f) => f.name.endsWith('.onnx'))?.name;
  if (!name) throw new Error(`${entry.id} names no .onnx file`);
  // Opset 17: the published export's ops (opset 18) less nothing this graph uses.
  const g = new GraphBuilder(opts.seed, 17);
  buildSmartTurn(g, opts.scale === 'full' ? FULL : SMALL);
  mkdirSync(dir, { recursive: true });
  const bytes = g.write(path.join(dir, name));
  return { parameters: g.parameters, files: [{ name, bytes }] };
}

export const SMART_TURN_V3_2_STANDIN: StandinGenerator = {
  id: 'smart-turn-v3.2-cpu',
  publishedParameters: 8_000_000,
  parametersSource: 'huggingface.co/pipecat-ai/smart-turn-v3 model card: "Params: 8M" (Whisper Tiny encoder + classifier head)',
  write: writeSmartTurn,
};
