/**
 * A real-size stand-in for Kokoro-82M v0.19 as sherpa-onnx runs it (kokoro-en-v0_19: tokens [1, T]
 * int64, style [1, 256], speed [1] → audio [samples] at 24 kHz): StyleTTS 2's inference path at
 * Kokoro's published sizes (config.json: PL-BERT = ALBERT 768 wide, 12 heads, FFN 2048, 12 layers
 * sharing one layer's weights; hidden_dim 512; style_dim 128; n_layer 3; max_dur 50; iSTFTNet with
 * upsample_rates [10, 6], kernels [20, 12], n_fft 20, hop 5), random weights. Here: PL-BERT, the
 * BERT→hidden projection and the text encoder, wired to the predictor (kokoro-predictor.ts) and the
 * decoder (kokoro-decoder.ts); then the files sherpa-onnx reads, with test/layouts/voices.ts's
 * metadata and token table.
 */
import { lstatSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ModelEntry } from '../types';
import { KOKORO_V0_19, kokoroMetadata, linkEspeakData } from '../../test/layouts/voices';
import { kokoroSymbols, tokensText } from '../../test/layouts/tokens';
import { GraphBuilder, DT } from './onnx-graph';
import { conv1d, layerNorm, linear, transposeTC } from './layers';
import { SeededRandom } from './random';
import type { StandinGenerator, StandinScale, StandinWritten } from './types';
import { kokoroDecoder, type DecoderSizes } from './kokoro-decoder';
import { alignment, biLstm, expand, predictDurations, predictF0N, type PredictorSizes } from './kokoro-predictor';

interface AlbertSizes {
  embedding: number;
  hidden: number;
  heads: number;
  intermediate: number;
  layers: number;
  positions: number;
}

export interface KokoroSizes {
  /** n_token: the phoneme vocabulary. */
  vocab: number;
  albert: AlbertSizes;
  predictor: PredictorSizes;
  textKernel: number;
  decoder: DecoderSizes;
}

const HIDDEN = 512;
const STYLE = KOKORO_V0_19.styleDim / 2;

/** Kokoro-82M's config.json (v0.19). */
export const KOKORO_FULL: KokoroSizes = {
  vocab: 178,
  albert: { embedding: 128, hidden: 768, heads: 12, intermediate: 2048, layers: 12, positions: 512 },
  predictor: { hidden: HIDDEN, style: STYLE, layers: 3, maxDur: 50 },
  textKernel: 5,
  decoder: {
    text: HIDDEN,
    style: STYLE,
    encode: 1024,
    asrRes: 64,
    initial: 512,
    rates: [10, 6],
    kernels: [20, 12],
    resKernels: [3, 7, 11],
    resDilations: [
      [1, 3, 5],
      [1, 3, 5],
      [1, 3, 5],
    ],
    nFft: 20,
    hop: 5,
    harmonics: 8,
    sampleRate: KOKORO_V0_19.sampleRate,
  },
};

/**
 * For CI: every width and the layer counts shrunk, the time resolution (rates, kernels, FFT, max_dur)
 * and the style's 128 + 128 kept, so the audio has the same length per phoneme.
 */
export const KOKORO_SMALL: KokoroSizes = {
  vocab: 178,
  albert: { embedding: 16, hidden: 32, heads: 2, intermediate: 64, layers: 2, positions: 512 },
  predictor: { hidden: 32, style: STYLE, layers: 2, maxDur: 50 },
  textKernel: 5,
  decoder: { ...KOKORO_FULL.decoder, text: 32, encode: 64, asrRes: 8, initial: 32 },
};

/**
 * The mean frames (25 ms each: 600 samples) a phoneme lasts at speed 1. sherpa-onnx's tokens are
 * espeak-ng's symbols, stress and length marks and spaces included (about 1.15 a character), so
 * 2.4 frames, 60 ms a token, is about 70 ms a character: 14 characters a second, conversational
 * English. Random weights alone would give 25 frames (625 ms) a token.
 */
const FRAMES_PER_PHONEME = 2.4;

interface AlbertWeights {
  q: [string, string];
  k: [string, string];
  v: [string, string];
  o: [string, string];
  ln1: [string, string];
  ffn: [string, string];
  ffnOut: [string, string];
  ln2: [string, string];
}

function albertWeights(g: GraphBuilder, z: AlbertSizes): AlbertWeights {
  const dense = (i: number, o: number): [string, string] => [g.param('w', [i, o]), g.param('b', [o], 0.02)];
  const norm = (): [string, string] => [g.filled('ln_w', [z.hidden], 1), g.filled('ln_b', [z.hidden], 0)];
  const h = z.hidden;
  return { q: dense(h, h), k: dense(h, h), v: dense(h, h), o: dense(h, h), ln1: norm(), ffn: dense(h, z.intermediate), ffnOut: dense(z.intermediate, h), ln2: norm() };
}

/** One ALBERT layer (post-LN attention, then the gelu_new FFN) on x [1, T, hidden]. */
function albertLayer(g: GraphBuilder, x: string, w: AlbertWeights, z: AlbertSizes): string {
  const dh = z.hidden / z.heads;
  const dense = (y: string, [wt, b]: [string, string]) => g.op('Add', [g.op('MatMul', [y, wt]), b]);
  const norm = (y: string, [s, b]: [string, string]) => g.op('LayerNormalization', [y, s, b], { axis: -1, epsilon: { f: 1e-12 } });
  const heads = (y: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [y, g.ints([1, -1, z.heads, dh])])], { perm });
  const q = heads(dense(x, w.q), [0, 2, 1, 3]);
  const k = heads(dense(x, w.k), [0, 2, 3, 1]);
  const v = heads(dense(x, w.v), [0, 2, 1, 3]);
  const scores = g.op('Softmax', [g.op('Mul', [g.op('MatMul', [q, k]), g.scalar(1 / Math.sqrt(dh))])], { axis: -1 });
  const ctx = g.op('Reshape', [g.op('Transpose', [g.op('MatMul', [scores, v])], { perm: [0, 2, 1, 3] }), g.ints([1, -1, z.hidden])]);
  const a = norm(g.op('Add', [x, dense(ctx, w.o)]), w.ln1);
  // gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), opset 17 has no Gelu.
  const f = dense(a, w.ffn);
  const inner = g.op('Mul', [g.op('Add', [f, g.op('Mul', [g.op('Mul', [g.op('Mul', [f, f]), f]), g.scalar(0.044715)])]), g.scalar(Math.sqrt(2 / Math.PI))]);
  const gelu = g.op('Mul', [g.op('Mul', [f, g.scalar(0.5)]), g.op('Add', [g.op('Tanh', [inner]), g.scalar(1)])]);
  return norm(g.op('Add', [a, dense(gelu, w.ffnOut)]), w.ln2);
}

/** PL-BERT: word + position + token-type embeddings, LayerNorm, the projection to hidden, then its layers, all with the one shared layer's weights. */
function plBert(g: GraphBuilder, tokens: string, tScalar: string, vocab: number, z: AlbertSizes): string {
  const words = g.op('Gather', [g.param('word_emb', [vocab, z.embedding], 0.02), tokens]);
  const positions = g.op('Gather', [g.param('pos_emb', [z.positions, z.embedding], 0.02), g.op('Range', [g.ints([0], []), tScalar, g.ints([1], [])])]);
  const type0 = g.op('Gather', [g.param('type_emb', [2, z.embedding], 0.02), g.ints([0])]);
  const emb = layerNorm(g, g.op('Add', [g.op('Add', [words, positions]), type0]), z.embedding);
  let x = linear(g, emb, z.embedding, z.hidden);
  // ALBERT shares one layer's parameters across all layers: drawn once, run `layers` times.
  const shared = albertWeights(g, z);
  for (let i = 0; i < z.layers; i++) x = albertLayer(g, x, shared, z);
  return x;
}

/** TextEncoder: embedding, n_layer × (conv k5, LayerNorm, LeakyReLU 0.2), a bidirectional LSTM → [T, 1, hidden]. */
function textEncoder(g: GraphBuilder, tokens: string, z: KokoroSizes): string {
  const c = z.predictor.hidden;
  let x = transposeTC(g, g.op('Gather', [g.param('text_emb', [z.vocab, c], 1), tokens]));
  for (let i = 0; i < z.predictor.layers; i++) {
    x = transposeTC(g, layerNorm(g, transposeTC(g, conv1d(g, x, c, c, z.textKernel)), c));
    x = g.op('LeakyRelu', [x], { alpha: { f: 0.2 } });
  }
  return biLstm(g, g.op('Transpose', [x], { perm: [2, 0, 1] }), c, c / 2);
}

/** The whole inference graph (KModel.forward), inputs and output as sherpa-onnx's kokoro v0.19 export names them. */
export function buildKokoro(g: GraphBuilder, z: KokoroSizes): void {
  const tokens = g.input('tokens', DT.INT64, [1, 'tokens1']);
  const style = g.input('style', DT.FLOAT, [1, KOKORO_V0_19.styleDim]);
  const speed = g.input('speed', DT.FLOAT, [1]);
  const t = g.op('Slice', [g.op('Shape', [tokens]), g.ints([1]), g.ints([2])]);
  const tScalar = g.op('Squeeze', [t, g.ints([0])]);
  // The voice's 256: the decoder's style (acoustic) first, the predictor's (prosody) second.
  const sDec = g.op('Slice', [style, g.ints([0]), g.ints([STYLE]), g.ints([1])]);
  const sPros = g.op('Slice', [style, g.ints([STYLE]), g.ints([2 * STYLE]), g.ints([1])]);
  const p = z.predictor;

  const bert = plBert(g, tokens, tScalar, z.vocab, z.albert);
  const dEn = g.op('Transpose', [linear(g, bert, z.albert.hidden, p.hidden)], { perm: [1, 0, 2] });
  const { d, frames } = predictDurations(g, dEn, sPros, t, speed, p, FRAMES_PER_PHONEME);
  const aln = alignment(g, frames);
  const { f0, n } = predictF0N(g, expand(g, d, aln, p.hidden + p.style), sPros, p);
  const asr = g.op('Transpose', [expand(g, textEncoder(g, tokens, z), aln, p.hidden)], { perm: [1, 2, 0] });
  g.op('Identity', [kokoroDecoder(g, asr, f0, n, sDec, z.decoder)], {}, 'audio');
  g.output('audio', DT.FLOAT, ['samples']);
}

/** voices.bin: per speaker, a style vector per token count ([511, 1, 256] floats), spread like the published voices' (σ ≈ 0.15). */
function voicesBin(seed: number): Uint8Array {
  const v = KOKORO_V0_19;
  const data = new SeededRandom(seed ^ 0x766f6963).normal(v.speakers.length * v.maxTokens * v.styleDim, 0.15);
  return new Uint8Array(data.buffer);
}

export const KOKORO_EN_V0_19_STANDIN: StandinGenerator = {
  id: 'kokoro-en-v0_19',
  publishedParameters: 82_000_000,
  parametersSource: 'hexgrad/Kokoro-82M model card: "an open-weight TTS model with 82 million parameters" (v0.19 and v1.0 alike)',
  write(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): StandinWritten {
    const spec = entry.engine;
    if (spec.engine !== 'sherpa-tts' || spec.family !== 'kokoro' || !spec.voices) throw new Error(`${entry.id} is not a kokoro voice in the catalog`);
    mkdirSync(dir, { recursive: true });
    const g = new GraphBuilder(opts.seed);
    buildKokoro(g, opts.scale === 'full' ? KOKORO_FULL : KOKORO_SMALL);
    g.write(path.join(dir, spec.model), { ...kokoroMetadata(), comment: `A real-size stand-in for kokoro v0.19 (${opts.scale} scale, random weights)` });
    writeFileSync(path.join(dir, spec.voices), voicesBin(opts.seed));
    writeFileSync(path.join(dir, spec.tokens), tokensText(kokoroSymbols()));
    const roles = [spec.model, spec.voices, spec.tokens];
    const others = entry.files.map((f) => f.name).filter((name) => !roles.includes(name));
    for (const name of others) writeFileSync(path.join(dir, name), 'A real-size stand-in (random weights), not Kokoro.\n');
    if (spec.dataDir && spec.dataDir !== 'system' && !exists(path.join(dir, spec.dataDir))) linkEspeakData(dir, spec.dataDir);
    return { parameters: g.parameters, files: [...roles, ...others].map((name) => ({ name, bytes: statSync(path.join(dir, name)).size })) };
  },
};

/** Whether a path (a link included, even a dangling one) is there: a second write keeps the first's data link. */
function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
