/**
 * A stand-in for a NeMo transducer as sherpa-onnx's offline NeMo transducer model loads it (the
 * default offline recognizer, sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8): encoder
 * (audio_signal [B, feat_dim, T], length [B] → outputs [B, D, T/8], encoded_lengths [B]), an LSTM
 * prediction network's interface (targets int32 [B, 1], target_length, two states
 * [pred_rnn_layers, B, pred_hidden]) and a joiner whose last dimension is the vocabulary plus blank
 * plus, for TDT, the durations. The encoder carries the metadata sherpa-onnx reads (vocab_size,
 * normalize_type, pred_rnn_layers, pred_hidden, subsampling_factor, feat_dim, and a url naming
 * "tdt" for a TDT model), as sherpa-onnx's export script for parakeet-tdt-0.6b-v2 writes it.
 *
 * Nothing is learned: the joiner prefers one word piece while the decoder's last token is blank,
 * blank after it, and a duration of one frame, so a decode hears exactly one word.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOnnxModel, FLOAT, INT32, INT64 } from '../onnx-builder';
import { bpeTokens, tokensText } from './tokens';

/** parakeet-tdt-0.6b-v2: 1024 pieces (+ blank), 128 mel bands, 1024-dim encoder, 2 × 640 LSTM, durations 0-4. */
export const PARAKEET_TDT_V2 = {
  vocabSize: 1024,
  featDim: 128,
  encoderDim: 1024,
  predRnnLayers: 2,
  predHidden: 640,
  subsampling: 8,
  durations: 5,
  normalizeType: 'per_feature',
  url: 'https://huggingface.co/nvidia/parakeet-tdt-0.6b-v2',
};

export type NemoShape = typeof PARAKEET_TDT_V2;

export interface NemoFiles {
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
}

export function nemoEncoderMetadata(s: NemoShape): Record<string, string> {
  return {
    vocab_size: String(s.vocabSize),
    normalize_type: s.normalizeType,
    pred_rnn_layers: String(s.predRnnLayers),
    pred_hidden: String(s.predHidden),
    subsampling_factor: String(s.subsampling),
    model_type: 'EncDecRNNTBPEModel',
    version: '2',
    model_author: 'NeMo',
    url: s.url,
    comment: 'Only the transducer branch is exported',
    feat_dim: String(s.featDim),
  };
}

/** outputs: zeros [B, encoderDim, ceil(T / subsampling)]; encoded_lengths: ceil(length / subsampling). */
export function nemoEncoder(s: NemoShape, metadata = nemoEncoderMetadata(s)): Uint8Array {
  return buildOnnxModel({
    inputs: [
      { name: 'audio_signal', type: FLOAT, shape: ['B', s.featDim, 'T'] },
      { name: 'length', type: INT64, shape: ['B'] },
    ],
    outputs: [
      { name: 'outputs', type: FLOAT, shape: ['B', s.encoderDim, 'T_out'] },
      { name: 'encoded_lengths', type: INT64, shape: ['B'] },
    ],
    constants: [
      { name: 'start', dims: [1], values: [0], type: INT64 },
      { name: 'end', dims: [1], values: [2 ** 31 - 1], type: INT64 },
      { name: 'axis', dims: [1], values: [2], type: INT64 },
      { name: 'step', dims: [1], values: [s.subsampling], type: INT64 },
      { name: 'round_up', dims: [], values: [s.subsampling - 1], type: INT64 },
      { name: 'factor', dims: [], values: [s.subsampling], type: INT64 },
      { name: 'zeros', dims: [1, s.encoderDim, 1], values: new Array<number>(s.encoderDim).fill(0) },
    ],
    nodes: [
      // Every subsampling-th frame, averaged over the mel bands, times zero per channel.
      { op: 'Slice', inputs: ['audio_signal', 'start', 'end', 'axis', 'step'], outputs: ['frames'] },
      { op: 'ReduceMean', inputs: ['frames'], outputs: ['frame_mean'], attributes: { axes: { ints: [1] }, keepdims: { i: 1 } } },
      { op: 'Mul', inputs: ['frame_mean', 'zeros'], outputs: ['outputs'] },
      { op: 'Add', inputs: ['length', 'round_up'], outputs: ['length_up'] },
      { op: 'Div', inputs: ['length_up', 'factor'], outputs: ['encoded_lengths'] },
    ],
    metadata,
  });
}

/** outputs [B, predHidden, 1]: every channel holds the target token id; the states pass through. */
export function nemoDecoder(s: NemoShape): Uint8Array {
  const state = (name: string) => ({ name, type: FLOAT, shape: [s.predRnnLayers, 'B', s.predHidden] });
  return buildOnnxModel({
    inputs: [
      { name: 'targets', type: INT32, shape: ['B', 1] },
      { name: 'target_length', type: INT32, shape: ['B'] },
      state('input_states_1'),
      state('input_states_2'),
    ],
    outputs: [
      { name: 'outputs', type: FLOAT, shape: ['B', s.predHidden, 1] },
      { name: 'prednet_lengths', type: INT32, shape: ['B'] },
      state('output_states_1'),
      state('output_states_2'),
    ],
    constants: [
      { name: 'ones', dims: [1, s.predHidden, 1], values: new Array<number>(s.predHidden).fill(1) },
      { name: 'last_axis', dims: [1], values: [2], type: INT64 },
    ],
    nodes: [
      { op: 'Cast', inputs: ['targets'], outputs: ['target_float'], attributes: { to: { i: FLOAT } } },
      // [B, 1] → [B, 1, 1], times ones [1, H, 1] → [B, H, 1]
      { op: 'Unsqueeze', inputs: ['target_float', 'last_axis'], outputs: ['target_3d'] },
      { op: 'Mul', inputs: ['target_3d', 'ones'], outputs: ['outputs'] },
      { op: 'Identity', inputs: ['target_length'], outputs: ['prednet_lengths'] },
      { op: 'Identity', inputs: ['input_states_1'], outputs: ['output_states_1'] },
      { op: 'Identity', inputs: ['input_states_2'], outputs: ['output_states_2'] },
    ],
  });
}

/**
 * outputs [B, 1, 1, vocab + blank + durations]: `word` wins while the decoder's input was blank
 * (the start), blank wins after `word`, and the duration is always one frame.
 */
export function nemoJoiner(s: NemoShape, word: number): Uint8Array {
  const blank = s.vocabSize;
  const width = s.vocabSize + 1 + s.durations;
  const bias = new Array<number>(width).fill(0);
  const slope = new Array<number>(width).fill(0);
  // logit[word] = 2 * last / blank - 1: 1 after blank, about -1 after word (word < blank / 4); blank 0.5, the rest 0.
  bias[word] = -1;
  slope[word] = 2 / blank;
  bias[blank] = 0.5;
  bias[blank + 1 + 1] = 1;
  const reduceAll = { axes: { ints: [1, 2] }, keepdims: { i: 1 } };
  return buildOnnxModel({
    inputs: [
      { name: 'encoder_outputs', type: FLOAT, shape: ['B', s.encoderDim, 1] },
      { name: 'decoder_outputs', type: FLOAT, shape: ['B', s.predHidden, 1] },
    ],
    outputs: [{ name: 'outputs', type: FLOAT, shape: ['B', 1, 1, width] }],
    constants: [
      { name: 'bias', dims: [width], values: bias },
      { name: 'slope', dims: [width], values: slope },
      { name: 'axis', dims: [1], values: [1], type: INT64 },
    ],
    nodes: [
      { op: 'ReduceMean', inputs: ['encoder_outputs'], outputs: ['enc'], attributes: reduceAll },
      { op: 'ReduceMean', inputs: ['decoder_outputs'], outputs: ['dec'], attributes: reduceAll },
      { op: 'Add', inputs: ['enc', 'dec'], outputs: ['last'] },
      { op: 'Mul', inputs: ['last', 'slope'], outputs: ['scaled'] },
      { op: 'Add', inputs: ['scaled', 'bias'], outputs: ['logits'] },
      { op: 'Unsqueeze', inputs: ['logits', 'axis'], outputs: ['outputs'] },
    ],
  });
}

/** Writes the four files into `dir` under the catalog's names. */
export function writeNemoTransducer(dir: string, files: NemoFiles, opts: { shape?: NemoShape; encoderMetadata?: Record<string, string> } = {}): void {
  const s = opts.shape ?? PARAKEET_TDT_V2;
  // NeMo's tables: the pieces from 0 (<unk> first), the blank last.
  const tokens = bpeTokens(s.vocabSize + 1, { head: ['<unk>'], tail: ['<blk>'], word: '▁hello' });
  writeFileSync(path.join(dir, files.encoder), nemoEncoder(s, opts.encoderMetadata));
  writeFileSync(path.join(dir, files.decoder), nemoDecoder(s));
  writeFileSync(path.join(dir, files.joiner), nemoJoiner(s, tokens.indexOf('▁hello')));
  writeFileSync(path.join(dir, files.tokens), tokensText(tokens));
}
