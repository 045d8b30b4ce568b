/**
 * Kokoro's prosody predictor (StyleTTS 2's) for the kokoro stand-in: the duration encoder
 * (bidirectional LSTMs, each followed by a LayerNorm whose scale and shift come from the style),
 * the duration LSTM and projection, the length regulation from the predicted durations (in the
 * graph, as the alignment matrix the real model multiplies by), and the F0 and energy (N) predictors
 * at the expanded length. Sequences are kept time-major [T, 1, C] between LSTMs, ONNX's LSTM layout.
 */
import { DT, type GraphBuilder } from './onnx-graph';
import { linear } from './layers';
import { adainResBlk1d } from './kokoro-decoder';

export interface PredictorSizes {
  /** hidden_dim (d_hid), style_dim, n_layer, max_dur. */
  hidden: number;
  style: number;
  layers: number;
  maxDur: number;
}

/**
 * A bidirectional LSTM (ONNX's, gates iofc) on x [T, 1, inDim] → [T, 1, 2·hidden]; W, R and both
 * biases drawn as PyTorch initializes them (uniform ±1/√hidden, here its standard deviation).
 */
export function biLstm(g: GraphBuilder, x: string, inDim: number, hidden: number): string {
  const std = 1 / Math.sqrt(3 * hidden);
  const w = g.param('lstm_w', [2, 4 * hidden, inDim], std);
  const r = g.param('lstm_r', [2, 4 * hidden, hidden], std);
  const b = g.param('lstm_b', [2, 8 * hidden], std);
  const y = g.op('LSTM', [x, w, r, b], { hidden_size: hidden, direction: 'bidirectional' });
  // Y [T, 2, 1, H] → [T, 1, 2H]: both directions side by side, as PyTorch returns them.
  return g.op('Reshape', [g.op('Transpose', [y], { perm: [0, 2, 1, 3] }), g.ints([0, 0, -1])]);
}

/** AdaLayerNorm: LayerNorm over channels without its own affine, then (1 + γ(s))·x + β(s). x [T, 1, C]. */
function adaLayerNorm(g: GraphBuilder, x: string, s: string, style: number, channels: number): string {
  const [gamma, beta] = g.node('Split', [linear(g, s, style, 2 * channels)], { axis: 1 }, 2);
  const norm = g.op('LayerNormalization', [x, g.floats(new Array<number>(channels).fill(1))], { axis: -1, epsilon: { f: 1e-5 } });
  return g.op('Add', [g.op('Mul', [norm, g.op('Add', [gamma!, g.scalar(1)])]), beta!]);
}

/** The predictor's style [1, style] repeated along time: [T, 1, style]; `t` is T as a 1-D tensor. */
function styleAlongTime(g: GraphBuilder, s: string, t: string, style: number): string {
  return g.op('Expand', [g.op('Unsqueeze', [s, g.ints([0])]), g.op('Concat', [t, g.ints([1, style])], { axis: 0 })]);
}

export interface Durations {
  /** The duration encoder's output [T, 1, hidden + style], what the alignment expands. */
  d: string;
  /** Frames per token [T], int64, each at least 1. */
  frames: string;
}

/**
 * DurationEncoder, LSTM, duration projection: d_en [T, 1, hidden] → durations. Each of the max_dur
 * outputs is a sigmoid, summed, divided by speed, rounded, at least one frame; `targetFrames` is
 * the mean frames a phoneme lasts at speed 1 (see kokoro.ts).
 */
export function predictDurations(g: GraphBuilder, dEn: string, s: string, t: string, speed: string, z: PredictorSizes, targetFrames: number): Durations {
  const sT = styleAlongTime(g, s, t, z.style);
  let x = g.op('Concat', [dEn, sT], { axis: 2 });
  for (let i = 0; i < z.layers; i++) {
    const y = adaLayerNorm(g, biLstm(g, x, z.hidden + z.style, z.hidden / 2), s, z.style, z.hidden);
    x = g.op('Concat', [y, sT], { axis: 2 });
  }
  const h = biLstm(g, x, z.hidden + z.style, z.hidden / 2);
  const logits = g.op('Add', [g.op('MatMul', [phonemeVariation(g, h), durationWeights(g, z)]), g.filled('dur_b', [z.maxDur], durationBias(targetFrames, z.maxDur))]);
  const sum = g.op('ReduceSum', [g.op('Sigmoid', [logits]), g.ints([2])], { keepdims: 0 });
  const rounded = g.op('Max', [g.op('Round', [g.op('Div', [sum, speed])]), g.scalar(1)]);
  return { d: x, frames: g.op('Reshape', [g.op('Cast', [rounded], { to: DT.INT64 }), g.ints([-1])]) };
}

/**
 * Random weights give every phoneme a random length (max_dur/2 = 25 frames on average); a trained
 * model gives about 2-3 frames, longer for vowels, shorter for stress marks. Its projection is
 * calibrated to that: the logits share one direction (weight `DURATION_SPREAD`) so the sum moves
 * as a whole from phoneme to phoneme, plus their own noise; the bias sets the mean.
 */
const DURATION_SPREAD = 0.5;
const DURATION_NOISE = 0.3;

function durationWeights(g: GraphBuilder, z: PredictorSizes): string {
  const shared = g.rng.normal(z.hidden, DURATION_SPREAD / Math.sqrt(z.hidden));
  const data = g.rng.normal(z.hidden * z.maxDur, DURATION_NOISE / Math.sqrt(z.hidden));
  for (let i = 0; i < data.length; i++) data[i]! += shared[Math.floor(i / z.maxDur)]!;
  return g.tensor('dur_w', { dims: [z.hidden, z.maxDur], type: DT.FLOAT, data });
}

/**
 * The bias that makes max_dur·E[sigmoid(b + N(0, σ²))] = `frames` (σ² the logits' variance), by the
 * probit approximation of the logistic: E ≈ sigmoid(b / √(1 + πσ²/8)).
 */
function durationBias(frames: number, maxDur: number): number {
  const variance = DURATION_SPREAD ** 2 + DURATION_NOISE ** 2;
  return Math.log(frames / (maxDur - frames)) * Math.sqrt(1 + (Math.PI * variance) / 8);
}

/**
 * The duration LSTM's output [T, 1, H] centred and scaled over the utterance, what the calibrated
 * projection reads (a few elementwise ops on [T, 1, H], nothing beside the LSTMs). Random LSTMs keep
 * little of each phoneme's identity: their outputs share a large common part, which would move the
 * mean with the voice and the text, and differ along the sentence by about a fifth of their size,
 * mostly a slow drift. Standardizing removes the first, so the mean is the calibrated one, and keeps
 * the second, so lengths vary and their average follows 1/speed instead of rounding to one value.
 */
function phonemeVariation(g: GraphBuilder, h: string): string {
  const centred = g.op('Sub', [h, g.op('ReduceMean', [h], { axes: [0], keepdims: 1 })]);
  const variance = g.op('ReduceMean', [g.op('Mul', [centred, centred])], { keepdims: 1 });
  return g.op('Div', [centred, g.op('Sqrt', [g.op('Add', [variance, g.scalar(1e-8)])])]);
}

/**
 * Length regulation: frames per token [T] → the alignment [F, T] (float, one 1 per row: frame f
 * belongs to token t when start_t ≤ f < end_t), F the total. The transpose of the model's
 * pred_aln_trg, so a MatMul expands [T, C] features to [F, C].
 */
export function alignment(g: GraphBuilder, frames: string): string {
  const ends = g.op('CumSum', [frames, g.ints([0], [])]);
  const starts = g.op('Sub', [ends, frames]);
  const total = g.op('ReduceSum', [frames], { keepdims: 0 });
  const f = g.op('Unsqueeze', [g.op('Range', [g.ints([0], []), total, g.ints([1], [])]), g.ints([1])]);
  const inside = g.op('And', [g.op('GreaterOrEqual', [f, starts]), g.op('Less', [f, ends])]);
  return g.op('Cast', [inside], { to: DT.FLOAT });
}

/** [T, 1, C] → [F, 1, C] through the alignment [F, T]. */
export function expand(g: GraphBuilder, x: string, aln: string, channels: number): string {
  return g.op('Unsqueeze', [g.op('MatMul', [aln, g.op('Reshape', [x, g.ints([-1, channels])])]), g.ints([1])]);
}

/**
 * F0Ntrain: the expanded duration features [F, 1, hidden + style] → the shared LSTM, then two chains
 * of AdainResBlk1d (the second doubling the rate) and a 1×1 projection each: F0 and N [1, 1, 2F].
 */
export function predictF0N(g: GraphBuilder, en: string, s: string, z: PredictorSizes): { f0: string; n: string } {
  const shared = g.op('Transpose', [biLstm(g, en, z.hidden + z.style, z.hidden / 2)], { perm: [1, 2, 0] });
  const chain = (bias: number) => {
    let x = adainResBlk1d(g, shared, s, z.style, z.hidden, z.hidden);
    x = adainResBlk1d(g, x, s, z.style, z.hidden, z.hidden / 2, true);
    x = adainResBlk1d(g, x, s, z.style, z.hidden / 2, z.hidden / 2);
    const w = g.param('proj', [1, z.hidden / 2, 1]);
    return g.op('Add', [g.op('Conv', [x, w], { kernel_shape: [1] }), g.filled('proj_b', [1, 1], bias)]);
  };
  // F0's projection bias puts the pitch about a speaking voice's 150 Hz, so the source is voiced as in speech.
  return { f0: chain(150), n: chain(0) };
}
