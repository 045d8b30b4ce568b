/**
 * Real-size stand-in for sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8: NVIDIA's Parakeet TDT 0.6B v2
 * as sherpa-onnx's export script writes it (scripts/nemo/parakeet-tdt-0.6b-v2/export_onnx.py: NeMo's
 * own export of encoder, decoder and joint, then `quantize_dynamic` with QUInt8 weights for the
 * encoder and QInt8 for the decoder and joiner), with random weights.
 *
 * - encoder.int8.onnx: the FastConformer (fastconformer.ts), 24 layers at d_model 1024.
 * - decoder.int8.onnx: the prediction network: an int8 embedding (a quantized Gather) and two LSTM
 *   layers of 640, which quantize_dynamic turns into com.microsoft DynamicQuantizeLSTM with per-gate
 *   int8 weights; the states go in and out as sherpa-onnx's NeMo decoder expects.
 * - joiner.int8.onnx: encoder and prediction projections to 640, their sum, ReLU, and a projection
 *   to the 1024 word pieces, blank and the 5 TDT durations.
 * - tokens.txt: NeMo's order (<unk> first, the blank last) with short letter pieces, about the real
 *   table's size; the encoder's metadata is the layout stand-in's (test/layouts/nemo-transducer.ts).
 *
 * The joiner's output bias is what a trained model's decisions cost: the blank and duration logits
 * are calibrated on the written encoder (nemo-tdt-calibration.ts) so greedy TDT decoding of speech
 * emits about 3 word pieces a second and skips 1-4 frames a step, as the real model does, instead of
 * a piece on every frame or none at all.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nemoEncoderMetadata, PARAKEET_TDT_V2, type NemoFiles, type NemoShape } from '../../test/layouts/nemo-transducer';
import { tokensText } from '../../test/layouts/tokens';
import type { ModelEntry } from '../types';
import { fastConformerEncoder, type FastConformerShape } from './fastconformer';
import { calibrateJoint, UNCALIBRATED, type JointCalibration } from './nemo-tdt-calibration';
import { linear } from './layers';
import { DT, GraphBuilder } from './onnx-graph';
import type { StandinGenerator, StandinScale, StandinWritten } from './types';

interface TdtShape {
  encoder: FastConformerShape;
  predHidden: number;
  predLayers: number;
  jointHidden: number;
  /** Word pieces, without the blank. */
  vocab: number;
  durations: number;
}

/** parakeet-tdt-0.6b-v2's NeMo config: FastConformer XL, dw_striding 8×, rel_pos, 2 × LSTM 640, joint 640, durations 0-4. */
const FULL: TdtShape = {
  encoder: {
    featDim: 128,
    dModel: 1024,
    layers: 24,
    heads: 8,
    ffExpansion: 4,
    convKernel: 9,
    subsamplingChannels: 256,
    subsamplingStages: 3,
    posEmbMaxLen: 5000,
    xscaling: true,
  },
  predHidden: 640,
  predLayers: 2,
  jointHidden: 640,
  vocab: 1024,
  durations: 5,
};

/** The same graphs, narrow and shallow (the vocabulary and features stay: they set the interface). */
const SMALL: TdtShape = {
  encoder: { ...FULL.encoder, dModel: 64, layers: 2, heads: 4, subsamplingChannels: 16, posEmbMaxLen: 1250 },
  predHidden: 32,
  predLayers: 2,
  jointHidden: 32,
  vocab: 1024,
  durations: 5,
};

/**
 * One LSTM layer as quantize_dynamic leaves it: DynamicQuantizeLSTM with int8 W [1, in, 4H] and
 * R [1, H, 4H] (transposed, per-gate-row scales), float biases. Returns Y [U, B, H], Y_h, Y_c.
 */
function quantizedLstm(g: GraphBuilder, x: string, h0: string, c0: string, input: number, hidden: number): [string, string, string] {
  const weight = (fanIn: number) => {
    const w = g.tensor('lstm_wq', { dims: [1, fanIn, 4 * hidden], type: DT.INT8, data: g.rng.int8(fanIn * 4 * hidden) });
    const scale = g.tensor('lstm_scale', { dims: [1, 4 * hidden], type: DT.FLOAT, data: new Float32Array(4 * hidden).fill(1 / (73 * Math.sqrt(fanIn))) }, false);
    const zero = g.tensor('lstm_zp', { dims: [1, 4 * hidden], type: DT.INT8, data: new Int8Array(4 * hidden) }, false);
    return { w, scale, zero };
  };
  const W = weight(input);
  const R = weight(hidden);
  // PyTorch's two biases (b_ih, b_hh), as ONNX's B [1, 8H].
  const bias = g.param('lstm_b', [1, 8 * hidden], 0.02);
  const [y, yh, yc] = g.node(
    'DynamicQuantizeLSTM',
    [x, W.w, R.w, bias, '', h0, c0, '', W.scale, W.zero, R.scale, R.zero],
    { hidden_size: hidden },
    3,
    'com.microsoft',
  );
  return [g.op('Squeeze', [y!, g.ints([1])]), yh!, yc!];
}

/** NeMo's RNNTDecoder export: targets [B, 1] int32 + states → outputs [B, H, 1] + new states. */
function predictionNetwork(s: TdtShape, seed: number): GraphBuilder {
  const g = new GraphBuilder(seed);
  const state = (name: string) => g.input(name, DT.FLOAT, [s.predLayers, 'B', s.predHidden]);
  const targets = g.input('targets', DT.INT32, ['B', 1]);
  const targetLength = g.input('target_length', DT.INT32, ['B']);
  const hIn = state('input_states_1');
  const cIn = state('input_states_2');
  // The embedding has a row for the blank too (blank_as_pad); a quantized Gather reads int8 rows.
  const rows = s.vocab + 1;
  const table = g.tensor('embed_q', { dims: [rows, s.predHidden], type: DT.INT8, data: g.rng.int8(rows * s.predHidden) });
  const zero = g.tensor('embed_zp', { dims: [], type: DT.INT8, data: new Int8Array(1) }, false);
  const embedded = g.op('DequantizeLinear', [g.op('Gather', [table, targets]), g.scalar(1 / 73), zero]); // [B, 1, H]
  let x = g.op('Transpose', [embedded], { perm: [1, 0, 2] }); // [U, B, H]: PyTorch's LSTM is time-major
  const hs: string[] = [];
  const cs: string[] = [];
  for (let l = 0; l < s.predLayers; l++) {
    const layer = (t: string) => g.op('Slice', [t, g.ints([l]), g.ints([l + 1]), g.ints([0])]);
    const [y, h, c] = quantizedLstm(g, x, layer(hIn), layer(cIn), s.predHidden, s.predHidden);
    x = y;
    hs.push(h);
    cs.push(c);
  }
  g.op('Transpose', [x], { perm: [1, 2, 0] }, 'outputs');
  g.op('Identity', [targetLength], {}, 'prednet_lengths');
  g.op('Concat', hs, { axis: 0 }, 'output_states_1');
  g.op('Concat', cs, { axis: 0 }, 'output_states_2');
  g.output('outputs', DT.FLOAT, ['B', s.predHidden, 'U']);
  g.output('prednet_lengths', DT.INT32, ['B']);
  g.output('output_states_1', DT.FLOAT, [s.predLayers, 'B', s.predHidden]);
  g.output('output_states_2', DT.FLOAT, [s.predLayers, 'B', s.predHidden]);
  return g;
}

/** The joint's output bias: small random ones for the pieces, the calibrated ones for blank and durations. */
function jointBias(g: GraphBuilder, s: TdtShape, calibration: JointCalibration): string {
  const width = s.vocab + 1 + s.durations;
  const bias = g.rng.normal(width, 0.02);
  bias[s.vocab] = calibration.blank;
  for (let d = 0; d < s.durations; d++) bias[s.vocab + 1 + d] = calibration.durations[d] ?? 0;
  return g.tensor('joint_b', { dims: [width], type: DT.FLOAT, data: bias });
}

/**
 * NeMo's RNNTJoint export: encoder_outputs [B, D, T], decoder_outputs [B, H, U] →
 * outputs [B, T, U, vocab + blank + durations].
 */
function joiner(s: TdtShape, seed: number, calibration: JointCalibration): GraphBuilder {
  const g = new GraphBuilder(seed);
  const enc = g.input('encoder_outputs', DT.FLOAT, ['B', s.encoder.dModel, 'T']);
  const dec = g.input('decoder_outputs', DT.FLOAT, ['B', s.predHidden, 'U']);
  const toLast = (x: string) => g.op('Transpose', [x], { perm: [0, 2, 1] });
  const f = linear(g, toLast(enc), s.encoder.dModel, s.jointHidden, { form: 'qint8' }); // [B, T, J]
  const p = linear(g, toLast(dec), s.predHidden, s.jointHidden, { form: 'qint8' }); // [B, U, J]
  const sum = g.op('Add', [g.op('Unsqueeze', [f, g.ints([2])]), g.op('Unsqueeze', [p, g.ints([1])])]);
  const width = s.vocab + 1 + s.durations;
  const logits = linear(g, g.op('Relu', [sum]), s.jointHidden, width, { form: 'qint8', bias: false });
  g.op('Add', [logits, jointBias(g, s, calibration)], {}, 'outputs');
  g.output('outputs', DT.FLOAT, ['B', 'T', 'U', width]);
  return g;
}

function encoderGraph(s: TdtShape, seed: number): GraphBuilder {
  const g = new GraphBuilder(seed);
  fastConformerEncoder(g, s.encoder);
  return g;
}

/** The catalog entry's file names for the four roles. */
function filesOf(entry: ModelEntry): NemoFiles {
  const spec = entry.engine;
  if (spec.engine !== 'sherpa-offline' || spec.family !== 'transducer' || spec.modelType !== 'nemo_transducer') {
    throw new Error(`${entry.id} is no longer a sherpa-offline nemo_transducer: update its stand-in`);
  }
  const { encoder, decoder, joiner, tokens } = spec;
  if (!encoder || !decoder || !joiner) throw new Error(`${entry.id} names no encoder, decoder or joiner file`);
  return { encoder, decoder, joiner, tokens };
}

/** The metadata sherpa-onnx reads, for these widths (the small scale's LSTM is narrower). */
function metadataFor(s: TdtShape): Record<string, string> {
  const shape: NemoShape = { ...PARAKEET_TDT_V2, vocabSize: s.vocab, featDim: s.encoder.featDim, encoderDim: s.encoder.dModel, predRnnLayers: s.predLayers, predHidden: s.predHidden, durations: s.durations };
  return nemoEncoderMetadata(shape);
}

/**
 * Word pieces as short as SentencePiece's (a, b, … z, aa, ab, …; every other one word-initial), so
 * the table and the decoded text are about the real ones' length; the layout stand-in's numbered
 * pieces would make tokens.txt a quarter larger.
 */
function pieces(vocab: number): string[] {
  const letters = (i: number): string => (i < 26 ? '' : letters(Math.floor(i / 26) - 1)) + String.fromCharCode(97 + (i % 26));
  const body = Array.from({ length: vocab - 1 }, (_, i) => (i % 2 === 0 ? '▁' : '') + letters(i));
  return ['<unk>', ...body, '<blk>'];
}

async function write(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): Promise<StandinWritten> {
  const s = opts.scale === 'full' ? FULL : SMALL;
  const names = filesOf(entry);
  mkdirSync(dir, { recursive: true });
  const at = (name: string) => path.join(dir, name);
  const files: StandinWritten['files'] = [];
  let parameters = 0;
  // One graph at a time, so only one model's weights are in memory.
  const put = (name: string, build: () => GraphBuilder, metadata: Record<string, string> = {}, opsets: Record<string, number> = {}) => {
    const g = build();
    files.push({ name, bytes: g.write(at(name), metadata, opsets) });
    parameters += g.parameters;
  };
  put(names.encoder, () => encoderGraph(s, opts.seed), metadataFor(s));
  put(names.decoder, () => predictionNetwork(s, opts.seed + 1), {}, { 'com.microsoft': 1 });
  // The joiner twice from one seed: provisional, then with the blank and durations calibrated on it.
  joiner(s, opts.seed + 2, UNCALIBRATED).write(at(names.joiner));
  const shape = { featDim: s.encoder.featDim, predLayers: s.predLayers, predHidden: s.predHidden, vocab: s.vocab, durations: s.durations };
  const calibration = await calibrateJoint({ encoder: at(names.encoder), decoder: at(names.decoder), joiner: at(names.joiner) }, shape, opts.seed);
  put(names.joiner, () => joiner(s, opts.seed + 2, calibration));
  const tokens = tokensText(pieces(s.vocab));
  writeFileSync(at(names.tokens), tokens);
  files.push({ name: names.tokens, bytes: Buffer.byteLength(tokens) });
  return { parameters, files };
}

export const NEMO_PARAKEET_TDT_V2_STANDIN: StandinGenerator = {
  id: 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8',
  publishedParameters: 600_000_000,
  parametersSource: 'huggingface.co/nvidia/parakeet-tdt-0.6b-v2 model card: "a 600-million-parameter automatic speech recognition (ASR) model"',
  write,
};
