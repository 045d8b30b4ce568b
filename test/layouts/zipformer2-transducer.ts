/**
 * A stand-in for icefall's streaming Zipformer2 transducer as sherpa-onnx loads it (the default
 * streaming recognizer, sherpa-onnx-streaming-zipformer-en-2023-06-26): encoder, decoder and joiner
 * with the exported input and output names, the encoder's cache tensors shaped from its metadata,
 * and the metadata keys sherpa-onnx's online zipformer2 model reads (model_type, encoder_dims,
 * query_head_dims, value_head_dims, num_heads, num_encoder_layers, cnn_module_kernels,
 * left_context_len, T, decode_chunk_len; the decoder's vocab_size and context_size).
 *
 * Nothing is learned: the encoder gives zeros, and the joiner prefers one word piece while the
 * decoder's last token is blank and blank after it, so a decode hears exactly one word.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOnnxModel, FLOAT, INT64, type Node, type ValueInfo } from '../onnx-builder';
import { bpeTokens, HEARD_WORD, tokensText } from './tokens';

/** The 2023-06-26 model's export settings (icefall zipformer, chunk 16, left context 128). */
export const ZIPFORMER_2023_06_26 = {
  encoderDims: [192, 256, 384, 512, 384, 256],
  numEncoderLayers: [2, 2, 3, 4, 3, 2],
  numHeads: [4, 4, 4, 8, 4, 4],
  queryHeadDim: 32,
  valueHeadDim: 12,
  cnnModuleKernels: [31, 31, 15, 15, 15, 31],
  downsampling: [1, 2, 4, 8, 4, 2],
  leftContextFrames: 128,
  chunkSize: 16,
  joinerDim: 512,
  vocabSize: 500,
  contextSize: 2,
};

export type ZipformerShape = typeof ZIPFORMER_2023_06_26;

export interface ZipformerFiles {
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
}

/** Feature frames per fbank vector (sherpa's online zipformer2 default). */
const FEATURE_DIM = 80;
/** Frames of right context the encoder_embed and ConvNeXt need: 7 + 2 * 3. */
const PAD_LENGTH = 13;

/** The encoder's metadata as icefall's export-onnx-streaming.py writes it. */
export function zipformerEncoderMetadata(s: ZipformerShape): Record<string, string> {
  const list = (v: number[]) => v.join(',');
  const decodeChunkLen = s.chunkSize * 2;
  return {
    model_type: 'zipformer2',
    version: '1',
    model_author: 'k2-fsa',
    comment: 'streaming zipformer2',
    decode_chunk_len: String(decodeChunkLen),
    T: String(decodeChunkLen + PAD_LENGTH),
    num_encoder_layers: list(s.numEncoderLayers),
    encoder_dims: list(s.encoderDims),
    cnn_module_kernels: list(s.cnnModuleKernels),
    left_context_len: list(s.downsampling.map((k) => s.leftContextFrames / k)),
    query_head_dims: list(s.encoderDims.map(() => s.queryHeadDim)),
    value_head_dims: list(s.encoderDims.map(() => s.valueHeadDim)),
    num_heads: list(s.numHeads),
  };
}

/** The encoder's cache tensors, in sherpa's order: six per layer, then embed_states and processed_lens. */
function cacheInputs(s: ZipformerShape): ValueInfo[] {
  const out: ValueInfo[] = [];
  let layer = 0;
  s.encoderDims.forEach((dim, i) => {
    const left = s.leftContextFrames / s.downsampling[i]!;
    const keyDim = s.queryHeadDim * s.numHeads[i]!;
    const valueDim = s.valueHeadDim * s.numHeads[i]!;
    const conv = Math.floor(s.cnnModuleKernels[i]! / 2);
    for (let j = 0; j < s.numEncoderLayers[i]!; j++, layer++) {
      out.push(
        { name: `cached_key_${layer}`, type: FLOAT, shape: [left, 'N', keyDim] },
        { name: `cached_nonlin_attn_${layer}`, type: FLOAT, shape: [1, 'N', left, (3 * dim) / 4] },
        { name: `cached_val1_${layer}`, type: FLOAT, shape: [left, 'N', valueDim] },
        { name: `cached_val2_${layer}`, type: FLOAT, shape: [left, 'N', valueDim] },
        { name: `cached_conv1_${layer}`, type: FLOAT, shape: ['N', dim, conv] },
        { name: `cached_conv2_${layer}`, type: FLOAT, shape: ['N', dim, conv] },
      );
    }
  });
  const embedDim = Math.floor((Math.floor((FEATURE_DIM - 1) / 2) - 1) / 2);
  out.push({ name: 'embed_states', type: FLOAT, shape: ['N', 128, 3, embedDim] });
  out.push({ name: 'processed_lens', type: INT64, shape: ['N'] });
  return out;
}

export function zipformerEncoder(s: ZipformerShape, metadata = zipformerEncoderMetadata(s)): Uint8Array {
  const T = s.chunkSize * 2 + PAD_LENGTH;
  const frames = s.chunkSize;
  const caches = cacheInputs(s);
  // The caches go back out unchanged, each as new_<name>.
  const passThrough: Node[] = caches.map((c) => ({ op: 'Identity', inputs: [c.name], outputs: [`new_${c.name}`] }));
  return buildOnnxModel({
    inputs: [{ name: 'x', type: FLOAT, shape: ['N', T, FEATURE_DIM] }, ...caches],
    outputs: [{ name: 'encoder_out', type: FLOAT, shape: ['N', frames, s.joinerDim] }, ...caches.map((c) => ({ ...c, name: `new_${c.name}` }))],
    constants: [
      { name: 'starts', dims: [1], values: [0], type: INT64 },
      { name: 'ends', dims: [1], values: [frames], type: INT64 },
      { name: 'time_axis', dims: [1], values: [1], type: INT64 },
      { name: 'zeros', dims: [s.joinerDim], values: new Array<number>(s.joinerDim).fill(0) },
    ],
    nodes: [
      // encoder_out = zeros [N, frames, joinerDim], derived from x so its batch size follows.
      { op: 'Slice', inputs: ['x', 'starts', 'ends', 'time_axis'], outputs: ['x_chunk'] },
      { op: 'ReduceMean', inputs: ['x_chunk'], outputs: ['x_mean'], attributes: { axes: { ints: [2] }, keepdims: { i: 1 } } },
      { op: 'Mul', inputs: ['x_mean', 'zeros'], outputs: ['encoder_out'] },
      ...passThrough,
    ],
    metadata,
  });
}

/** decoder_out [N, joinerDim]: every channel holds the last token id of y [N, contextSize]. */
export function zipformerDecoder(s: ZipformerShape): Uint8Array {
  return buildOnnxModel({
    inputs: [{ name: 'y', type: INT64, shape: ['N', s.contextSize] }],
    outputs: [{ name: 'decoder_out', type: FLOAT, shape: ['N', s.joinerDim] }],
    constants: [
      { name: 'last', dims: [1], values: [s.contextSize - 1], type: INT64 },
      { name: 'end', dims: [1], values: [s.contextSize], type: INT64 },
      { name: 'axis', dims: [1], values: [1], type: INT64 },
      { name: 'ones', dims: [s.joinerDim], values: new Array<number>(s.joinerDim).fill(1) },
    ],
    nodes: [
      { op: 'Cast', inputs: ['y'], outputs: ['y_float'], attributes: { to: { i: FLOAT } } },
      { op: 'Slice', inputs: ['y_float', 'last', 'end', 'axis'], outputs: ['y_last'] },
      { op: 'Mul', inputs: ['y_last', 'ones'], outputs: ['decoder_out'] },
    ],
    metadata: { context_size: String(s.contextSize), vocab_size: String(s.vocabSize) },
  });
}

/**
 * logit [N, vocabSize]: `word` wins while the decoder's last token is blank (0), and blank once it
 * is `word` itself.
 */
export function zipformerJoiner(s: ZipformerShape, word: number): Uint8Array {
  const bias = new Array<number>(s.vocabSize).fill(0);
  const slope = new Array<number>(s.vocabSize).fill(0);
  // logit[word] = 1 - 2 * last / word: 1 after blank (0), -1 after word; blank 0.5, the rest 0.
  bias[word] = 1;
  slope[word] = -2 / word;
  bias[0] = 0.5;
  return buildOnnxModel({
    inputs: [
      { name: 'encoder_out', type: FLOAT, shape: ['N', s.joinerDim] },
      { name: 'decoder_out', type: FLOAT, shape: ['N', s.joinerDim] },
    ],
    outputs: [{ name: 'logit', type: FLOAT, shape: ['N', s.vocabSize] }],
    constants: [
      { name: 'bias', dims: [s.vocabSize], values: bias },
      { name: 'slope', dims: [s.vocabSize], values: slope },
    ],
    nodes: [
      { op: 'Add', inputs: ['encoder_out', 'decoder_out'], outputs: ['sum'] },
      { op: 'ReduceMean', inputs: ['sum'], outputs: ['last'], attributes: { axes: { ints: [1] }, keepdims: { i: 1 } } },
      { op: 'Mul', inputs: ['last', 'slope'], outputs: ['scaled'] },
      { op: 'Add', inputs: ['scaled', 'bias'], outputs: ['logit'] },
    ],
    metadata: { joiner_dim: String(s.joinerDim) },
  });
}

/** Writes the four files into `dir` under the catalog's names. */
export function writeZipformerTransducer(
  dir: string,
  files: ZipformerFiles,
  opts: { shape?: ZipformerShape; encoderMetadata?: Record<string, string> } = {},
): void {
  const s = opts.shape ?? ZIPFORMER_2023_06_26;
  // icefall's BPE tables: <blk> 0, <sos/eos> 1, <unk> 2, then the pieces.
  const tokens = bpeTokens(s.vocabSize, { head: ['<blk>', '<sos/eos>', '<unk>'] });
  writeFileSync(path.join(dir, files.encoder), zipformerEncoder(s, opts.encoderMetadata));
  writeFileSync(path.join(dir, files.decoder), zipformerDecoder(s));
  writeFileSync(path.join(dir, files.joiner), zipformerJoiner(s, tokens.indexOf(HEARD_WORD)));
  writeFileSync(path.join(dir, files.tokens), tokensText(tokens));
}
