/**
 * A real-size stand-in for the Piper voice vits-piper-en_US-libritts_r-medium (and its -int8 build): the VITS graph
 * piper exports (input, input_lengths, scales = [noise, length, noise_w], sid → output [1, 1, T])
 * computing the whole inference path with random weights: speaker embedding (904 × 512), text
 * encoder, stochastic duration predictor in reverse, durations → ceil → monotonic alignment
 * (expanding the prior frame by frame), flow in reverse, HiFi-GAN generator. Its durations are
 * calibrated (vits-duration.ts), so a text gives as much audio, and costs as much, as with the real voice.
 *
 * Two forms: `fp32`, piper's own export (sherpa-onnx's vits-piper-en_US-libritts_r-medium, the
 * default voice), and `int8`, its smaller build (sherpa-onnx's dynamic QUInt8 quantization, see
 * vits-ops.ts; the same file names).
 */
import { lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { PIPER_LIBRITTS_R, writePiperVoice } from '../../test/layouts/voices';
import type { ModelEntry } from '../types';
import { DT, GraphBuilder } from './onnx-graph';
import type { StandinGenerator, StandinScale, StandinWritten } from './types';
import { vitsConfig } from './vits-config';
import { flowReverse, generator } from './vits-decoder';
import { durationPredictor, NOISE_SEED } from './vits-duration';
import { embedding, type Net } from './vits-ops';
import { textEncoder } from './vits-text-encoder';

export type PiperForm = 'int8' | 'fp32';

export interface PiperStandinGenerator extends StandinGenerator {
  form: PiperForm;
  publishedParameters: number;
}

/** The keys sherpa-onnx's scripts/piper/add_meta_data.py writes, which its piper frontend reads. */
const METADATA: Record<string, string> = {
  model_type: 'vits',
  comment: 'piper',
  language: 'English',
  voice: 'en-us',
  has_espeak: '1',
  n_speakers: String(PIPER_LIBRITTS_R.speakers),
  sample_rate: String(PIPER_LIBRITTS_R.sampleRate),
};

/** Builds the inference graph on `g`. */
export function buildPiperVits(g: GraphBuilder, form: PiperForm, scale: StandinScale): void {
  const c = { ...vitsConfig(scale), speakers: PIPER_LIBRITTS_R.speakers };
  const n: Net = { g, form: form === 'int8' ? 'quint8' : 'fp32' };
  const ids = g.input('input', DT.INT64, [1, 'phonemes']);
  const lengths = g.input('input_lengths', DT.INT64, [1]);
  const scales = g.input('scales', DT.FLOAT, [3]);
  const sid = g.input('sid', DT.INT64, [1]);
  const scaleAt = (i: number) => g.op('Gather', [scales, g.ints([i], [])], { axis: 0 });
  const [noise, lengthScale, noiseW] = [scaleAt(0), scaleAt(1), scaleAt(2)];

  // x_mask [1, 1, T] from input_lengths (all ones for one sentence, computed as piper does).
  const length = g.op('Squeeze', [g.op('Slice', [g.op('Shape', [ids]), g.ints([1]), g.ints([2])]), g.ints([0])]);
  const positions = g.op('Range', [g.ints([0], []), length, g.ints([1], [])]);
  const inside = g.op('Less', [g.op('Unsqueeze', [positions, g.ints([0])]), g.op('Unsqueeze', [lengths, g.ints([1])])]);
  const mask = g.op('Cast', [g.op('Unsqueeze', [inside, g.ints([1])])], { to: DT.FLOAT });

  const spk = g.op('Unsqueeze', [embedding(n, sid, c.speakers, c.gin, 1), g.ints([2])]);
  const enc = textEncoder(n, ids, mask, length, c);
  const logw = durationPredictor(n, enc.x, mask, spk, noiseW, c);

  // Frames per phoneme: ceil(e^logw × length_scale); at least one frame in all.
  const w = g.op('Ceil', [g.op('Mul', [g.op('Mul', [g.op('Exp', [logw]), mask]), lengthScale])]);
  const frames = g.op('Max', [g.op('ReduceSum', [w], { keepdims: 0 }), g.scalar(1)]);
  const t = g.op('Cast', [g.op('Range', [g.ints([0], []), g.op('Cast', [frames], { to: DT.INT64 }), g.ints([1], [])])], { to: DT.FLOAT });
  const yMask = g.op('Unsqueeze', [g.op('Cast', [g.op('Less', [t, frames])], { to: DT.FLOAT }), g.ints([0, 1])]);
  // The alignment [1, frames, T]: frame f belongs to phoneme j when end(j−1) ≤ f < end(j).
  const ends = g.op('CumSum', [w, g.ints([2], [])]);
  const before = g.op('Cast', [g.op('Less', [g.op('Unsqueeze', [t, g.ints([1])]), ends])], { to: DT.FLOAT });
  const shifted = g.op('Slice', [g.op('Pad', [before, g.ints([0, 0, 1, 0, 0, 0]), g.scalar(0)]), g.ints([0]), g.ints([-1]), g.ints([2])]);
  const pairMask = g.op('Mul', [g.op('Transpose', [yMask], { perm: [0, 2, 1] }), mask]);
  const path = g.op('Mul', [g.op('Sub', [before, shifted]), pairMask]);
  const expand = (v: string) => g.op('Transpose', [g.op('MatMul', [path, g.op('Transpose', [v], { perm: [0, 2, 1] })])], { perm: [0, 2, 1] });
  const mP = expand(enc.m);
  const logsP = expand(enc.logs);

  const noiseP = g.op('Mul', [g.op('Mul', [g.op('RandomNormalLike', [mP], { seed: { f: NOISE_SEED + 1 } }), g.op('Exp', [logsP])]), noise]);
  const z = flowReverse(n, g.op('Add', [mP, noiseP]), yMask, spk, c);
  const audio = generator(n, g.op('Mul', [z, yMask]), spk, c);
  g.op('Identity', [audio], {}, 'output');
  g.output('output', DT.FLOAT, [1, 1, 'time']);
}

function writeVoice(form: PiperForm, dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): StandinWritten {
  const spec = entry.engine;
  if (spec.engine !== 'sherpa-tts' || spec.family !== 'vits') throw new Error(`${entry.id} is not a VITS voice`);
  if (!spec.dataDir || spec.dataDir === 'system') throw new Error(`${entry.id} names no bundled espeak-ng-data folder`);
  mkdirSync(dir, { recursive: true });
  // A link left by an earlier write would stop the new one.
  const link = path.join(dir, spec.dataDir);
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
  const others = entry.files.map((f) => f.name).filter((name) => name !== spec.model && name !== spec.tokens);
  // The layout stand-in's writer lays out the tokens, config, card and espeak-ng-data link; its
  // tiny model is then replaced by the real-size graph.
  writePiperVoice(dir, { model: spec.model, tokens: spec.tokens, dataDir: spec.dataDir, others });
  const g = new GraphBuilder(opts.seed);
  buildPiperVits(g, form, opts.scale);
  g.write(path.join(dir, spec.model), METADATA);
  const files = [spec.model, spec.tokens, ...others].map((name) => ({ name, bytes: statSync(path.join(dir, name)).size }));
  return { parameters: g.parameters, files };
}

/** The stand-in of the voice in one form: `fp32` is the catalog's default voice, `int8` its smaller build. */
export function piperVitsStandin(form: PiperForm = 'int8'): PiperStandinGenerator {
  return {
    id: form === 'int8' ? 'vits-piper-en_US-libritts_r-medium-int8' : 'vits-piper-en_US-libritts_r-medium',
    form,
    // 78.6 MB of float32 is 19.65 M; the inference graph proper (without the posterior encoder,
    // the duration predictor's training-only flows and the first ConvFlow) has 19.50 M.
    publishedParameters: 19_650_000,
    parametersSource: 'en_US-libritts_r-medium.onnx (rhasspy/piper-voices, float32) is 78.6 MB: 19.65 M parameters at 4 bytes each',
    write: (dir, entry, opts) => writeVoice(form, dir, entry, opts),
  };
}

export const PIPER_LIBRITTS_R_INT8 = piperVitsStandin('int8');
export const PIPER_LIBRITTS_R_FP32 = piperVitsStandin('fp32');
