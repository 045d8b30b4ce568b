/** The model catalog's schema: what a model is, where its files come from, how an engine loads it. */

export type ModelKind = 'vad' | 'stt' | 'llm' | 'tts' | 'turn';

/** Kinds the assistant cannot start without; the others ('turn') only improve it. */
export type RequiredKind = Exclude<ModelKind, 'turn'>;
export const REQUIRED_KINDS: readonly RequiredKind[] = ['vad', 'stt', 'llm', 'tts'];
export const OPTIONAL_KINDS: readonly ModelKind[] = ['turn'];

export function isOptionalKind(kind: ModelKind): boolean {
  return OPTIONAL_KINDS.includes(kind);
}

export interface ModelFile {
  /** Path of the file inside the model's directory (may contain '/'). */
  name: string;
  /** Where the downloader gets it; absent for files that only ship bundled or locally. */
  url?: string;
  /** Exact byte size, when known. */
  bytes?: number;
  /** Lowercase hex sha256, when known. */
  sha256?: string;
  /** Set when a value above could not be checked against the publisher (see native-models/README). */
  unconfirmed?: boolean;
}

/** How sherpa-onnx / node-llama-cpp must be configured for this model. */
export type EngineSpec =
  | { engine: 'silero-vad'; model: string }
  | {
      engine: 'sherpa-online';
      family: 'zipformer2-ctc' | 'transducer';
      /** file names (keys of ModelEntry.files) per role */
      model?: string;
      encoder?: string;
      decoder?: string;
      joiner?: string;
      tokens: string;
    }
  | {
      engine: 'sherpa-offline';
      family: 'zipformer-ctc' | 'nemo-ctc' | 'transducer' | 'moonshine' | 'whisper' | 'sense-voice';
      model?: string;
      encoder?: string;
      decoder?: string;
      joiner?: string;
      preprocessor?: string;
      uncachedDecoder?: string;
      cachedDecoder?: string;
      tokens: string;
      /** sherpa's modelConfig.modelType, e.g. 'nemo_transducer' for NeMo/Parakeet transducers. */
      modelType?: string;
    }
  | { engine: 'llama-gguf'; model: string }
  /** An end-of-turn classifier with Pipecat Smart Turn v3's interface (input_features [batch, 80, 800]). */
  | { engine: 'smart-turn'; model: string }
  | {
      engine: 'sherpa-tts';
      family: 'vits' | 'kokoro' | 'matcha' | 'kitten';
      model: string;
      tokens: string;
      voices?: string;
      lexicon?: string;
      vocoder?: string;
      /** Directory (inside the model dir) holding espeak-ng-data; 'system' means the OS copy. */
      dataDir?: string | 'system';
    };

export interface ModelEntry {
  id: string;
  kind: ModelKind;
  name: string;
  description: string;
  licence: string;
  /** Where the licence/facts come from (publisher page). */
  source?: string;
  /** Sub-directory of a models root holding the files; defaults to the id. */
  dir?: string;
  files: ModelFile[];
  engine: EngineSpec;
  /** Published as an archive only: the downloader fetches and extracts it. */
  archive?: { url: string; bytes?: number; sha256?: string; stripComponents?: number; unconfirmed?: boolean };
  /** For test/local models that never download. */
  local?: true;
  /** Approximate memory/VRAM need in MiB, for recommendations. */
  memoryMiB?: number;
  /**
   * LLMs: the machines this model is the default for: 'cpu' (no usable GPU, or one too small for the
   * 'gpu' default) or 'gpu' (a GPU it fits). A model with neither is offered only when asked for.
   */
  defaultFor?: 'cpu' | 'gpu';
}

export interface ResolvedModel {
  entry: ModelEntry;
  /** Directory the files were found in. */
  dir: string;
  /** Absolute path of every file in entry.files, by name. */
  paths: Record<string, string>;
}
