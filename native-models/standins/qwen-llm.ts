/**
 * Stand-ins for the two default language models, Qwen2.5 1.5B Instruct Q4_K_M (CPU default) and
 * Qwen3 4B Instruct 2507 Q4_K_M (GPU default): the published architecture (layers, widths, heads,
 * grouped key/values, feed-forward width, Qwen3's per-head query/key norms), each tensor in the
 * ggml type llama.cpp's Q4_K_M recipe gives it (llama-quant.cpp: attn_v and ffn_down in Q6_K on
 * the layers `moreBits` picks, the rest Q4_K, norms and biases F32), the real tokenizer and chat
 * template (llama-cpp-source.ts), and random weights.
 *
 * The official Qwen2.5 1.5B file carries an untied output matrix in Q6_K and its token embeddings
 * in Q4_K (its size, 1,117,320,736 bytes, is what those give; a file with tied embeddings, as
 * bartowski's 986 MB one, has token_embd in Q6_K instead): the stand-in does the same.
 */
import path from 'node:path';
import type { ModelEntry } from '../types';
import { writeGguf, type GgmlType, type GgufTensor, type GgufValue } from './gguf-writer';
import { copyGgufEntries, llamaCppSourceFile } from './llama-cpp-source';
import { SeededRandom } from './random';
import type { StandinGenerator, StandinScale } from './types';

interface QwenShape {
  arch: 'qwen2' | 'qwen3';
  name: string;
  layers: number;
  embd: number;
  ff: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  contextLength: number;
  ropeBase: number;
  /** Q/K/V biases (Qwen2) or per-head Q/K RMS norms (Qwen3). */
  qkv: 'bias' | 'norm';
  /** A separate output matrix (Q6_K) with the embeddings in Q4_K, as the official Qwen2.5 file. */
  untiedOutput: boolean;
  template: string;
}

const VOCAB = 151_936;

export const QWEN25_1_5B: QwenShape = {
  arch: 'qwen2',
  name: 'Qwen2.5 1.5B Instruct (stand-in)',
  layers: 28,
  embd: 1536,
  ff: 8960,
  heads: 12,
  kvHeads: 2,
  headDim: 128,
  contextLength: 32_768,
  ropeBase: 1_000_000,
  qkv: 'bias',
  untiedOutput: true,
  template: 'models/templates/Qwen-Qwen2.5-7B-Instruct.jinja',
};

export const QWEN3_4B_2507: QwenShape = {
  arch: 'qwen3',
  name: 'Qwen3 4B Instruct 2507 (stand-in)',
  layers: 36,
  embd: 2560,
  ff: 9728,
  heads: 32,
  kvHeads: 8,
  headDim: 128,
  contextLength: 262_144,
  ropeBase: 5_000_000,
  qkv: 'norm',
  untiedOutput: false,
  // llama.cpp keeps Qwen3's template (the 0.6B's); the 2507 instruct build's differs only in having no thinking block.
  template: 'models/templates/Qwen-Qwen3-0.6B.jinja',
};

/** The same code path, small enough for CI: two narrow layers over the full vocabulary. */
function shrink(s: QwenShape): QwenShape {
  return { ...s, layers: 2, embd: 256, ff: 512, heads: 4, kvHeads: 2, headDim: 64 };
}

/** llama-quant.cpp's use_more_bits: the first and last eighth of the layers and every third between. */
const moreBits = (i: number, n: number) => i < n / 8 || i >= (7 * n) / 8 || (i - Math.floor(n / 8)) % 3 === 2;

/** Weight scale per type so a dequantized weight has about a 1/sqrt(fan-in) spread (see gguf-writer's blocks). */
function weightScale(type: GgmlType, fanIn: number): number {
  const spread = type === 'Q6_K' ? 1330 : 170;
  return 1 / (spread * Math.sqrt(fanIn));
}

export function qwenTensors(s: QwenShape): (GgufTensor & { scale: number; fill?: number })[] {
  const w = (name: string, dims: number[], type: GgmlType) => ({ name, dims, type, scale: weightScale(type, dims[0]!) });
  const norm = (name: string, n: number) => ({ name, dims: [n], type: 'F32' as const, scale: 0, fill: 1 });
  const bias = (name: string, n: number) => ({ name, dims: [n], type: 'F32' as const, scale: 0.02 });
  const q = s.heads * s.headDim;
  const kv = s.kvHeads * s.headDim;
  const out: (GgufTensor & { scale: number; fill?: number })[] = [w('token_embd.weight', [s.embd, VOCAB], s.untiedOutput ? 'Q4_K' : 'Q6_K')];
  for (let i = 0; i < s.layers; i++) {
    const b = `blk.${i}.`;
    const more = moreBits(i, s.layers) ? 'Q6_K' : 'Q4_K';
    out.push(norm(`${b}attn_norm.weight`, s.embd), w(`${b}attn_q.weight`, [s.embd, q], 'Q4_K'), w(`${b}attn_k.weight`, [s.embd, kv], 'Q4_K'), w(`${b}attn_v.weight`, [s.embd, kv], more));
    if (s.qkv === 'bias') out.push(bias(`${b}attn_q.bias`, q), bias(`${b}attn_k.bias`, kv), bias(`${b}attn_v.bias`, kv));
    else out.push(norm(`${b}attn_q_norm.weight`, s.headDim), norm(`${b}attn_k_norm.weight`, s.headDim));
    out.push(
      w(`${b}attn_output.weight`, [q, s.embd], 'Q4_K'),
      norm(`${b}ffn_norm.weight`, s.embd),
      w(`${b}ffn_gate.weight`, [s.embd, s.ff], 'Q4_K'),
      w(`${b}ffn_up.weight`, [s.embd, s.ff], 'Q4_K'),
      w(`${b}ffn_down.weight`, [s.ff, s.embd], more),
    );
  }
  out.push(norm('output_norm.weight', s.embd));
  if (s.untiedOutput) out.push(w('output.weight', [s.embd, VOCAB], 'Q6_K'));
  return out;
}

/** Parameters as the model card counts them: tied embeddings once (an untied copy in the file is not counted). */
export function qwenParameters(s: QwenShape): number {
  return qwenTensors(s)
    .filter((t) => t.name !== 'output.weight')
    .reduce((n, t) => n + t.dims.reduce((a, b) => a * b, 1), 0);
}

function metadata(s: QwenShape): [string, GgufValue][] {
  const a = s.arch;
  return [
    ['general.architecture', { str: a }],
    ['general.name', { str: s.name }],
    // 15: LLAMA_FTYPE_MOSTLY_Q4_K_M.
    ['general.file_type', { u32: 15 }],
    ['general.quantization_version', { u32: 2 }],
    [`${a}.block_count`, { u32: s.layers }],
    [`${a}.context_length`, { u32: s.contextLength }],
    [`${a}.embedding_length`, { u32: s.embd }],
    [`${a}.feed_forward_length`, { u32: s.ff }],
    [`${a}.attention.head_count`, { u32: s.heads }],
    [`${a}.attention.head_count_kv`, { u32: s.kvHeads }],
    [`${a}.attention.key_length`, { u32: s.headDim }],
    [`${a}.attention.value_length`, { u32: s.headDim }],
    [`${a}.rope.freq_base`, { f32: s.ropeBase }],
    [`${a}.attention.layer_norm_rms_epsilon`, { f32: 1e-6 }],
    // The instruct models end a turn with <|im_end|> and take no BOS.
    ['tokenizer.ggml.eos_token_id', { u32: 151_645 }],
    ['tokenizer.ggml.padding_token_id', { u32: 151_643 }],
    ['tokenizer.ggml.bos_token_id', { u32: 151_643 }],
    ['tokenizer.ggml.add_bos_token', { bool: false }],
    ['tokenizer.chat_template', { str: llamaCppSourceFile(s.template).toString('utf8') }],
  ];
}

/** Writes the GGUF; returns its size in bytes. */
export function writeQwenGguf(file: string, s: QwenShape, seed: number): number {
  const vocab = llamaCppSourceFile('models/ggml-vocab-qwen2.gguf');
  const tokenizer = copyGgufEntries(vocab, (k) => ['tokenizer.ggml.model', 'tokenizer.ggml.pre', 'tokenizer.ggml.tokens', 'tokenizer.ggml.token_type', 'tokenizer.ggml.merges'].includes(k));
  return writeGguf(file, metadata(s), tokenizer, qwenTensors(s), new SeededRandom(seed));
}

function qwenGenerator(id: string, shape: QwenShape, publishedParameters: number, parametersSource: string): StandinGenerator {
  return {
    id,
    publishedParameters,
    parametersSource,
    write(dir: string, entry: ModelEntry, opts: { scale: StandinScale; seed: number }) {
      const spec = entry.engine;
      if (spec.engine !== 'llama-gguf') throw new Error(`${entry.id} is not a GGUF model`);
      const s = opts.scale === 'full' ? shape : shrink(shape);
      const bytes = writeQwenGguf(path.join(dir, spec.model), s, opts.seed);
      return { parameters: qwenParameters(s), files: [{ name: spec.model, bytes }] };
    },
  };
}

export const QWEN25_1_5B_STANDIN = qwenGenerator('qwen2.5-1.5b-instruct-q4_k_m', QWEN25_1_5B, 1_540_000_000, 'Qwen2.5-1.5B-Instruct model card: 1.54 B parameters (1.31 B without embeddings)');
export const QWEN3_4B_STANDIN = qwenGenerator('qwen3-4b-instruct-2507-q4_k_m', QWEN3_4B_2507, 4_000_000_000, 'Qwen3-4B-Instruct-2507 model card: 4.0 B parameters (3.6 B without embeddings)');
