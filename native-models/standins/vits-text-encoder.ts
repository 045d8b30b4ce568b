/**
 * VITS's text encoder (the prior encoder's transformer): phoneme embedding × √hidden, then layers of
 * multi-head self-attention with relative-position keys and values inside a window (Shaw et al.,
 * shared by the heads), post-norm residuals and a two-conv FFN, and a 1×1 projection to the prior's
 * mean and log-scale. The relative terms are placed with a one-hot [T, T, 2w+1] map of j − i + w
 * (zero outside the window), which is what the original's pad-and-reshape trick computes.
 */
import { DT } from './onnx-graph';
import type { VitsConfig } from './vits-config';
import { channelNorm, conv, embedding, type Net } from './vits-ops';

export interface EncoderOut {
  /** Encoder output [1, hidden, T] (the duration predictor's input). */
  x: string;
  /** The prior's mean and log-scale, [1, hidden, T] each. */
  m: string;
  logs: string;
}

/** [T, T, 2w+1]: 1 where key j is at relative offset r − w from query i. */
function relativeMap(n: Net, length: string, window: number): string {
  const { g } = n;
  const zero = g.ints([0], []);
  const one = g.ints([1], []);
  const pos = g.op('Range', [zero, length, one]);
  const offset = g.op('Sub', [g.op('Unsqueeze', [pos, g.ints([0])]), g.op('Unsqueeze', [pos, g.ints([1])])]);
  const r = g.op('Range', [g.ints([-window], []), g.ints([window + 1], []), one]);
  return g.op('Cast', [g.op('Equal', [g.op('Unsqueeze', [offset, g.ints([2])]), r])], { to: DT.FLOAT });
}

function attention(n: Net, x: string, c: VitsConfig, rel: { map: string; mapT: string }, scoreMask: string): string {
  const { g } = n;
  const dk = c.hidden / c.heads;
  const heads = (v: string) => g.op('Transpose', [g.op('Reshape', [v, g.ints([0, c.heads, dk, -1])])], { perm: [0, 1, 3, 2] });
  const q = g.op('Mul', [heads(conv(n, x, c.hidden, c.hidden, 1)), g.scalar(1 / Math.sqrt(dk))]);
  const k = heads(conv(n, x, c.hidden, c.hidden, 1));
  const v = heads(conv(n, x, c.hidden, c.hidden, 1));
  const span = 2 * c.window + 1;
  const relK = g.param('rel_k', [1, span, dk], 1 / Math.sqrt(dk));
  const relV = g.param('rel_v', [1, span, dk], 1 / Math.sqrt(dk));
  // Content scores plus relative-key scores [1, h, T, 2w+1] spread onto their key positions.
  let scores = g.op('MatMul', [q, g.op('Transpose', [k], { perm: [0, 1, 3, 2] })]);
  const relLogits = g.op('MatMul', [q, g.op('Transpose', [relK], { perm: [0, 2, 1] })]);
  const local = g.op('Squeeze', [g.op('MatMul', [g.op('Unsqueeze', [relLogits, g.ints([3])]), rel.mapT]), g.ints([3])]);
  scores = g.op('Add', [scores, local]);
  scores = g.op('Where', [scoreMask, scores, g.scalar(-1e4)]);
  const p = g.op('Softmax', [scores], { axis: -1 });
  // Values plus relative values weighted by the attention each offset received.
  const relWeights = g.op('Squeeze', [g.op('MatMul', [g.op('Unsqueeze', [p, g.ints([3])]), rel.map]), g.ints([3])]);
  const out = g.op('Add', [g.op('MatMul', [p, v]), g.op('MatMul', [relWeights, relV])]);
  const merged = g.op('Reshape', [g.op('Transpose', [out], { perm: [0, 1, 3, 2] }), g.ints([0, c.hidden, -1])]);
  return conv(n, merged, c.hidden, c.hidden, 1);
}

/** ids [1, T] int64, mask [1, 1, T] float, length: T as an int64 scalar. */
export function textEncoder(n: Net, ids: string, mask: string, length: string, c: VitsConfig): EncoderOut {
  const { g } = n;
  const emb = g.op('Mul', [embedding(n, ids, c.vocab, c.hidden, 1 / Math.sqrt(c.hidden)), g.scalar(Math.sqrt(c.hidden))]);
  let x = g.op('Mul', [g.op('Transpose', [emb], { perm: [0, 2, 1] }), mask]);
  const map = relativeMap(n, length, c.window);
  const rel = { map, mapT: g.op('Transpose', [map], { perm: [0, 2, 1] }) };
  // [1, 1, T, T]: query and key both inside the sequence.
  const scoreMask = g.op('Cast', [g.op('Mul', [g.op('Unsqueeze', [mask, g.ints([3])]), g.op('Unsqueeze', [mask, g.ints([2])])])], { to: DT.BOOL });
  for (let i = 0; i < c.layers; i++) {
    x = channelNorm(n, g.op('Add', [x, attention(n, x, c, rel, scoreMask)]), c.hidden);
    const h = g.op('Relu', [conv(n, g.op('Mul', [x, mask]), c.hidden, c.filter, c.kernel)]);
    const y = g.op('Mul', [conv(n, g.op('Mul', [h, mask]), c.filter, c.hidden, c.kernel), mask]);
    x = channelNorm(n, g.op('Add', [x, y]), c.hidden);
  }
  x = g.op('Mul', [x, mask]);
  const stats = g.op('Mul', [conv(n, x, c.hidden, 2 * c.hidden, 1), mask]);
  const [m, logs] = g.node('Split', [stats, g.ints([c.hidden, c.hidden])], { axis: 1 }, 2);
  return { x, m: m!, logs: logs! };
}
