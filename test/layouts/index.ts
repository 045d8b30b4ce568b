/**
 * The layout of each default catalog model, as a stand-in that can be written in a moment: the
 * same files under the catalog's names, with the interface and metadata the engine reads (see
 * each generator), so the app's own loading path can run on it. A language model's layout is its
 * GGUF architecture: llama.cpp reads every GGUF the same way, so what can differ is whether it
 * knows the architecture.
 */
import path from 'node:path';
import type { EngineSpec, ModelEntry } from '../../native-models/types';
import { writeNemoTransducer, type NemoFiles } from './nemo-transducer';
import { writeSileroV5Vad, writeSmartTurnV3 } from './onnxruntime-models';
import { writeKokoroVoice, writePiperVoice } from './voices';
import { writeZipformerTransducer, type ZipformerFiles } from './zipformer2-transducer';

export type Layout =
  | { name: string; write(dir: string, entry: ModelEntry): void }
  /** A GGUF: `architecture` is its general.architecture. */
  | { name: string; architecture: string };

type Spec<E extends EngineSpec['engine']> = Extract<EngineSpec, { engine: E }>;

/** The entry's engine spec, when it is the engine (and family) this layout is for. */
function specOf<E extends EngineSpec['engine']>(entry: ModelEntry, engine: E, family?: string): Spec<E> {
  const spec = entry.engine;
  if (spec.engine !== engine || (family && 'family' in spec && spec.family !== family)) {
    throw new Error(`its catalog entry is no longer ${engine}${family ? ` ${family}` : ''}: update its layout`);
  }
  return spec as Spec<E>;
}

function named(entry: ModelEntry, file: string | undefined, role: string): string {
  if (!file) throw new Error(`its catalog entry names no ${role} file`);
  return file;
}

function transducerFiles(entry: ModelEntry, spec: { encoder?: string; decoder?: string; joiner?: string; tokens: string }): ZipformerFiles & NemoFiles {
  return {
    encoder: named(entry, spec.encoder, 'encoder'),
    decoder: named(entry, spec.decoder, 'decoder'),
    joiner: named(entry, spec.joiner, 'joiner'),
    tokens: spec.tokens,
  };
}

/** The catalog's files that no engine role names (a voice's config, model card, licence). */
const otherFiles = (entry: ModelEntry, roles: (string | undefined)[]) => entry.files.map((f) => f.name).filter((n) => !roles.includes(n));

export const ZIPFORMER2_TRANSDUCER: Layout = {
  name: 'streaming zipformer2 transducer',
  write: (dir, entry) => writeZipformerTransducer(dir, transducerFiles(entry, specOf(entry, 'sherpa-online', 'transducer'))),
};

export const NEMO_TDT_TRANSDUCER: Layout = {
  name: 'NeMo TDT transducer',
  write: (dir, entry) => {
    const spec = specOf(entry, 'sherpa-offline', 'transducer');
    if (spec.modelType !== 'nemo_transducer') throw new Error(`its catalog entry's modelType is ${spec.modelType ?? 'unset'}, not nemo_transducer`);
    writeNemoTransducer(dir, transducerFiles(entry, spec));
  },
};

export const PIPER_VITS: Layout = {
  name: 'piper vits voice',
  write: (dir, entry) => {
    const spec = specOf(entry, 'sherpa-tts', 'vits');
    const dataDir = named(entry, spec.dataDir === 'system' ? undefined : spec.dataDir, 'espeak-ng-data');
    writePiperVoice(dir, { model: spec.model, tokens: spec.tokens, dataDir, others: otherFiles(entry, [spec.model, spec.tokens]) });
  },
};

export const KOKORO_V0_19_VOICE: Layout = {
  name: 'kokoro v0.19 voice',
  write: (dir, entry) => {
    const spec = specOf(entry, 'sherpa-tts', 'kokoro');
    const dataDir = named(entry, spec.dataDir === 'system' ? undefined : spec.dataDir, 'espeak-ng-data');
    const voices = named(entry, spec.voices, 'voices');
    writeKokoroVoice(dir, { model: spec.model, voices, tokens: spec.tokens, dataDir, others: otherFiles(entry, [spec.model, spec.tokens, voices]) });
  },
};

export const SILERO_V5: Layout = {
  name: 'silero-v5 vad',
  write: (dir, entry) => writeSileroV5Vad(path.join(dir, specOf(entry, 'silero-vad').model)),
};

export const SMART_TURN_V3: Layout = {
  name: 'smart turn v3',
  write: (dir, entry) => writeSmartTurnV3(path.join(dir, specOf(entry, 'smart-turn').model)),
};

/** Every default catalog model's layout, by id. A default without one fails the check. */
export const DEFAULT_LAYOUTS: Readonly<Record<string, Layout>> = {
  'silero-vad': SILERO_V5,
  'sherpa-onnx-streaming-zipformer-en-2023-06-26': ZIPFORMER2_TRANSDUCER,
  'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8': NEMO_TDT_TRANSDUCER,
  // Qwen2.5's GGUFs (the official and bartowski's) say general.architecture = qwen2.
  'qwen2.5-1.5b-instruct-q4_k_m': { name: 'gguf qwen2', architecture: 'qwen2' },
  'qwen2.5-7b-instruct-q4_k_m': { name: 'gguf qwen2', architecture: 'qwen2' },
  // Qwen3's GGUFs say general.architecture = qwen3 (unsloth's as well).
  'qwen3-4b-instruct-2507-q4_k_m': { name: 'gguf qwen3', architecture: 'qwen3' },
  'vits-piper-en_US-libritts_r-medium': PIPER_VITS,
  'vits-piper-en_US-libritts_r-medium-int8': PIPER_VITS,
  'kokoro-en-v0_19': KOKORO_V0_19_VOICE,
  'smart-turn-v3.2-cpu': SMART_TURN_V3,
};
