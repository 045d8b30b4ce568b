/**
 * Real-size stand-in for sherpa-onnx-streaming-zipformer-en-2023-06-26: icefall's streaming
 * Zipformer2 transducer (chunk 16, left context 128) in the published files' forms. The int8 encoder
 * is zipformer2-encoder.ts; here are the fp32 decoder (embedding, grouped conv over the two context
 * tokens, ReLU, the joiner's decoder_proj), the int8 joiner (tanh of the sum, output_linear) and
 * tokens.txt. The metadata and I/O names are test/layouts/zipformer2-transducer.ts's.
 *
 * The weights are random, so what greedy search emits is set by the joiner's blank bias: blank wins
 * most frames and a word piece the rest, about 3 tokens a second of audio as in real English speech,
 * so decoding runs the decoder and joiner about as often as on a real transcript. Where a random
 * network's outputs fall depends on the seed, so the bias is calibrated on the written encoder and
 * decoder (zipformer2-calibration.ts); on other audio the rate still varies (see there).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ZIPFORMER_2023_06_26, zipformerEncoderMetadata, type ZipformerShape } from '../../test/layouts/zipformer2-transducer';
import { bpeTokens, tokensText } from '../../test/layouts/tokens';
import type { ModelEntry } from '../types';
import { DT, GraphBuilder } from './onnx-graph';
import { linear } from './layers';
import type { StandinGenerator, StandinScale, StandinWritten } from './types';
import { calibrateBlankLead } from './zipformer2-calibration';
import { buildEncoder, featureFrames, type Zipformer2Config } from './zipformer2-encoder';

interface TransducerConfig extends Zipformer2Config {
  decoderDim: number;
}

/** icefall's published options for the 2023-05-17 streaming checkpoint that sherpa exported on 2023-06-26. */
const FULL: TransducerConfig = {
  shape: ZIPFORMER_2023_06_26,
  feedforwardDims: [512, 768, 1024, 1536, 1024, 768],
  posDim: 48,
  posHeadDim: 4,
  embedChannels: [8, 32, 128],
  decoderDim: 512,
};

/** The same graph shrunk for CI: every stack, module and cache is there, only narrower and one layer deep. */
const SMALL: TransducerConfig = {
  shape: {
    ...ZIPFORMER_2023_06_26,
    encoderDims: [32, 48, 64, 80, 64, 48],
    numEncoderLayers: [1, 1, 1, 1, 1, 1],
    numHeads: [2, 2, 2, 2, 2, 2],
    queryHeadDim: 8,
    valueHeadDim: 4,
    leftContextFrames: 64,
    joinerDim: 64,
  },
  feedforwardDims: [64, 96, 128, 160, 128, 96],
  posDim: 16,
  posHeadDim: 4,
  // sherpa-onnx makes the initial embed_states with 128 channels, whatever the model.
  embedChannels: [4, 16, 128],
  decoderDim: 64,
};

/** Word pieces a second of audio greedy search should emit: English speech in BPE-500 pieces, with its pauses. */
const TOKENS_PER_SECOND = 3;

/** icefall's BPE table: <blk> 0, <sos/eos> 1, <unk> 2, then the pieces. */
const tokens = (s: ZipformerShape) => bpeTokens(s.vocabSize, { head: ['<blk>', '<sos/eos>', '<unk>'] });

/** decoder: y [N, context] → decoder_out [N, joiner_dim], float32 as published. */
function buildDecoder(g: GraphBuilder, s: ZipformerShape, decoderDim: number): void {
  const y = g.input('y', DT.INT64, ['N', s.contextSize]);
  // Embedding of y clamped at 0, zeroed where y < 0 (the exported Decoder.forward).
  const zero = g.tensor('c', { dims: [], type: DT.INT64, data: BigInt64Array.of(0n) }, false);
  const embedded = g.op('Gather', [g.param('embedding', [s.vocabSize, decoderDim], 0.3), g.op('Max', [y, zero])]);
  const valid = g.op('Cast', [g.op('GreaterOrEqual', [y, zero])], { to: DT.FLOAT });
  let h = g.op('Mul', [embedded, g.op('Unsqueeze', [valid, g.ints([2])])]); // [N, context, dim]
  // Conv1d over the context, groups of 4 channels, no bias, then ReLU.
  const groups = decoderDim / 4;
  const w = g.param('decoder_conv', [decoderDim, 4, s.contextSize], 1 / Math.sqrt(4 * s.contextSize));
  h = g.op('Conv', [g.op('Transpose', [h], { perm: [0, 2, 1] }), w], { kernel_shape: [s.contextSize], group: groups, pads: [0, 0], strides: [1] });
  h = g.op('Relu', [g.op('Squeeze', [h, g.ints([2])])]); // [N, dim]
  g.op('Identity', [linear(g, h, decoderDim, s.joinerDim)], {}, 'decoder_out');
  g.output('decoder_out', DT.FLOAT, ['N', s.joinerDim]);
}

/** The joiner's random int8 output_linear [joinerDim, vocab] and bias, drawn before its graph so the bias can be calibrated. */
interface JoinerDraw {
  weights: Int8Array;
  /** Dequantizes every int8 weight. */
  scale: number;
  bias: Float32Array;
}

/**
 * output_linear's int8 values, per tensor: the blank column's span three times the word pieces',
 * so blank's logit swings from frame to frame more than the best of 499 similar word-piece logits
 * (whose maximum barely moves), and the emission rate follows the blank bias smoothly.
 */
function drawJoiner(g: GraphBuilder, s: ZipformerShape): JoinerDraw {
  const [d, v] = [s.joinerDim, s.vocabSize];
  const span = 85;
  const weights = new Int8Array(d * v);
  for (let i = 0; i < weights.length; i++) weights[i] = i % v === 0 ? (g.rng.u32() % 255) - 127 : (g.rng.u32() % span) - (span - 1) / 2;
  // Word pieces' weights dequantize to a 1/sqrt(joiner_dim) spread (uniform ±42 has std 24.5).
  return { weights, scale: 1 / (24.5 * Math.sqrt(d)), bias: g.rng.normal(v, 0.05) };
}

/** joiner: logit = output_linear(tanh(encoder_out + decoder_out)), its MatMul dynamically quantized (QInt8) as published. */
function buildJoiner(g: GraphBuilder, s: ZipformerShape, j: JoinerDraw, lead: number): void {
  const enc = g.input('encoder_out', DT.FLOAT, ['N', s.joinerDim]);
  const dec = g.input('decoder_out', DT.FLOAT, ['N', s.joinerDim]);
  const hidden = g.op('Tanh', [g.op('Add', [enc, dec])]);
  const weight = g.tensor('output_linear', { dims: [s.joinerDim, s.vocabSize], type: DT.INT8, data: j.weights });
  const zero = g.tensor('zp', { dims: [], type: DT.INT8, data: new Int8Array(1) }, false);
  const [q, qScale, qZero] = g.node('DynamicQuantizeLinear', [hidden], {}, 3);
  const acc = g.op('Cast', [g.op('MatMulInteger', [q!, weight, qZero!, zero])], { to: DT.FLOAT });
  const logits = g.op('Mul', [acc, g.op('Mul', [qScale!, g.scalar(j.scale)])]);
  const bias = Float32Array.from(j.bias);
  bias[0]! += lead;
  g.op('Add', [logits, g.tensor('output_bias', { dims: [s.vocabSize], type: DT.FLOAT, data: bias })], {}, 'logit');
  g.output('logit', DT.FLOAT, ['N', s.vocabSize]);
}

function role(entry: ModelEntry, which: 'encoder' | 'decoder' | 'joiner' | 'tokens'): string {
  const spec = entry.engine;
  const name = spec.engine === 'sherpa-online' ? spec[which] : undefined;
  if (!name) throw new Error(`${entry.id} names no ${which} file`);
  return name;
}

async function writeTransducer(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }): Promise<StandinWritten> {
  const c = opts.scale === 'full' ? FULL : SMALL;
  const s = c.shape;
  const files: StandinWritten['files'] = [];
  let parameters = 0;
  mkdirSync(dir, { recursive: true });
  const put = (which: 'encoder' | 'decoder' | 'joiner', g: GraphBuilder, metadata: Record<string, string>): string => {
    const file = path.join(dir, role(entry, which));
    files.push({ name: role(entry, which), bytes: g.write(file, metadata) });
    parameters += g.parameters;
    return file;
  };
  // opset 13, what export-onnx-streaming.py exports with.
  const encoder = new GraphBuilder(opts.seed, 13);
  const io = buildEncoder(encoder, c);
  const encoderFile = put('encoder', encoder, zipformerEncoderMetadata(s));
  const decoder = new GraphBuilder(opts.seed + 1, 13);
  buildDecoder(decoder, s, c.decoderDim);
  const decoderFile = put('decoder', decoder, { context_size: String(s.contextSize), vocab_size: String(s.vocabSize) });
  const joiner = new GraphBuilder(opts.seed + 2, 13);
  const draw = drawJoiner(joiner, s);
  const lead = await calibrateBlankLead({
    encoderFile,
    decoderFile,
    caches: io.caches,
    featureFrames: featureFrames(c),
    chunkShift: 2 * s.chunkSize,
    contextSize: s.contextSize,
    weights: draw.weights,
    scale: draw.scale,
    bias: draw.bias,
    joinerDim: s.joinerDim,
    vocab: s.vocabSize,
    tokensPerSecond: TOKENS_PER_SECOND,
    minTokens: 3,
  });
  buildJoiner(joiner, s, draw, lead);
  put('joiner', joiner, { joiner_dim: String(s.joinerDim) });
  const tokensName = role(entry, 'tokens');
  const text = tokensText(tokens(s));
  writeFileSync(path.join(dir, tokensName), text);
  files.push({ name: tokensName, bytes: Buffer.byteLength(text) });
  return { parameters, files };
}

export const ZIPFORMER2_EN_2023_06_26_STANDIN: StandinGenerator = {
  id: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
  publishedParameters: 66_110_931,
  parametersSource:
    'icefall egs/librispeech/ASR/RESULTS.md, zipformer streaming normal-scaled model (icefall-asr-librispeech-streaming-zipformer-2023-05-17): 66110931',
  write: writeTransducer,
};
