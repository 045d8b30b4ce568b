/**
 * The model catalog: the default models the app downloads, and the small local test models.
 *
 * Every byte count and sha256 below is copied from shared/reference/default-models.md, including
 * its re-check at the publishers (native-models/README.md says which value was checked how). Values
 * known only from one third party ([T1]) or not at all (✗) are kept or left undefined as the
 * reference gives them, and marked `unconfirmed`: `npm run models -- lock` must measure them before
 * release. Nothing here was downloaded or hashed by us, except the local test models (measured on
 * the files in shared/models) and the default VAD, which is the same file as the test VAD.
 */
import type { ModelEntry } from './types';

const MiB = 1024 * 1024;
/** Rough allowance for a few-thousand-token context and compute buffers (our estimate, not measured). */
const LLM_CONTEXT_ALLOWANCE_MIB = 512;

/** Weights size (from the catalog's byte count) plus the context allowance. */
function llmMemoryMiB(bytes: number): number {
  return Math.ceil(bytes / MiB) + LLM_CONTEXT_ALLOWANCE_MIB;
}

const HF = 'https://huggingface.co/';
// GitHub release assets are mutable (re-uploaded with overwrite); only used where no pinned HF copy of the same bytes is known.
const GH_TTS = 'https://github.com/k2-fsa/sherpa-onnx/releases/download/tts-models/';

const ZIPFORMER_2023_06_26 =
  HF + 'csukuangfj/sherpa-onnx-streaming-zipformer-en-2023-06-26/resolve/672fbf1b30579d6585301139bb363f42a0ad4a24/';
const PARAKEET_V2 =
  HF + 'csukuangfj/sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8/resolve/1ab9323565ddb038682214b292f588070a538ce2/';

const QWEN25_15B_BYTES = 1_117_320_736;
const QWEN25_7B_BYTES = 4_683_074_240;
/** Two third parties agree on the size; one gives the sha256 (shared/reference/default-models.md). */
const QWEN3_4B_2507_BYTES = 2_497_281_120;

/**
 * sherpa-onnx's archive of the Piper LibriTTS-R medium voice (one build of it): one top folder with the
 * model, its tokens and espeak-ng-data/, whose files' sizes and sha256 no source gives.
 */
function piperLibritts(v: { id: string; name: string; description: string; archive: { url: string; bytes: number; sha256: string }; others: string[] }): ModelEntry {
  const model = 'en_US-libritts_r-medium.onnx';
  return {
    id: v.id,
    kind: 'tts',
    name: v.name,
    description: v.description,
    licence: 'Voice MIT; LibriTTS-R data CC-BY-4.0 (attribution); bundled espeak-ng-data GPL-3.0-or-later',
    source: 'https://github.com/k2-fsa/sherpa-onnx/releases/tag/tts-models',
    archive: { ...v.archive, stripComponents: 1, unconfirmed: true },
    files: [model, ...v.others, 'tokens.txt'].map((name) => ({ name, unconfirmed: true })),
    engine: { engine: 'sherpa-tts', family: 'vits', model, tokens: 'tokens.txt', dataDir: 'espeak-ng-data' },
  };
}

export const DEFAULT_CATALOG: readonly ModelEntry[] = [
  // ---------------------------------------------------------------- VAD
  {
    id: 'silero-vad',
    kind: 'vad',
    name: 'Silero VAD v5',
    description: 'Voice activity detection, 16 kHz; the upstream Silero v5 file, the same bytes every test loads.',
    licence: 'MIT (Silero)',
    source: 'https://github.com/snakers4/silero-vad',
    files: [
      {
        name: 'silero_vad.onnx',
        // Pinned to a commit: the k2-fsa re-export in sherpa-onnx's mutable asr-models release has
        // another layout (x/h/c), and its bytes have changed over time.
        url: 'https://github.com/snakers4/silero-vad/raw/bfdc0193023f121ea5b3cc7b176dbed570a68a59/src/silero_vad/data/silero_vad.onnx',
        bytes: 2_327_524,
        sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
      },
    ],
    engine: { engine: 'silero-vad', model: 'silero_vad.onnx' },
  },

  // ---------------------------------------------------------------- STT (streaming first: it is the stt default)
  {
    id: 'sherpa-onnx-streaming-zipformer-en-2023-06-26',
    kind: 'stt',
    name: 'Streaming Zipformer English 2023-06-26, int8',
    description:
      'Streaming transducer for live partial transcripts. 66 M params; LibriSpeech test-clean/other WER 3.06/7.79; ' +
      'RTF 0.062 with int8 encoder on 2 threads. LibriSpeech-only training, upper-case output without punctuation.',
    licence: 'Apache-2.0 (HF model card); the upstream icefall checkpoint declares no licence',
    source: 'https://huggingface.co/csukuangfj/sherpa-onnx-streaming-zipformer-en-2023-06-26',
    files: [
      {
        name: 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        url: ZIPFORMER_2023_06_26 + 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        bytes: 71_083_163,
        sha256: '563fde436d16cf7607cf408cd6b30909819d03162652ef389c2450ced3f45ac1',
      },
      {
        // fp32 decoder with int8 encoder/joiner, as the sherpa docs run it.
        name: 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
        url: ZIPFORMER_2023_06_26 + 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
        bytes: 2_092_621,
        sha256: '7bf787f90b194b307e5a4ad6a34fadb4e748304c35f78a8d66358a05b13ee6ef',
      },
      {
        name: 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        url: ZIPFORMER_2023_06_26 + 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
        bytes: 259_335,
        sha256: 'd944208d660d67c8d72cd2acaeac971fa5ceb8c80e76c1968148846fedd6e297',
      },
      {
        name: 'tokens.txt',
        url: ZIPFORMER_2023_06_26 + 'tokens.txt',
        bytes: 5_048,
        sha256: '49e3c2646595fd907228b3c6787069658f67b17377c60aeb8619c4551b2316fb',
      },
    ],
    engine: {
      engine: 'sherpa-online',
      family: 'transducer',
      encoder: 'encoder-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      decoder: 'decoder-epoch-99-avg-1-chunk-16-left-128.onnx',
      joiner: 'joiner-epoch-99-avg-1-chunk-16-left-128.int8.onnx',
      tokens: 'tokens.txt',
    },
  },
  {
    id: 'sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8',
    kind: 'stt',
    name: 'Parakeet TDT 0.6B v2 English, int8',
    description:
      'Accurate offline recognizer for VAD-segmented speech, with punctuation and casing. 600 M params; ' +
      'Open ASR leaderboard mean WER 6.05; sherpa RTF 0.118 on 2 threads. About 661 MB.',
    licence: 'CC-BY-4.0',
    source: 'https://huggingface.co/csukuangfj/sherpa-onnx-nemo-parakeet-tdt-0.6b-v2-int8',
    files: [
      {
        name: 'encoder.int8.onnx',
        url: PARAKEET_V2 + 'encoder.int8.onnx',
        bytes: 652_184_296,
        sha256: 'a32b12d17bbbc309d0686fbbcc2987b5e9b8333a7da83fa6b089f0a2acd651ab',
      },
      {
        name: 'decoder.int8.onnx',
        url: PARAKEET_V2 + 'decoder.int8.onnx',
        bytes: 7_257_753,
        sha256: 'b6bb64963457237b900e496ee9994b59294526439fbcc1fecf705b31a15c6b4e',
      },
      {
        name: 'joiner.int8.onnx',
        url: PARAKEET_V2 + 'joiner.int8.onnx',
        bytes: 1_739_080,
        sha256: '7946164367946e7f9f29a122407c3252b680dbae9a51343eb2488d057c3c43d2',
      },
      {
        name: 'tokens.txt',
        url: PARAKEET_V2 + 'tokens.txt',
        bytes: 9_384,
        sha256: 'ec182b70dd42113aff6c5372c75cac58c952443eb22322f57bbd7f53977d497d',
      },
    ],
    engine: {
      engine: 'sherpa-offline',
      family: 'transducer',
      encoder: 'encoder.int8.onnx',
      decoder: 'decoder.int8.onnx',
      joiner: 'joiner.int8.onnx',
      tokens: 'tokens.txt',
      modelType: 'nemo_transducer',
    },
  },

  // ---------------------------------------------------------------- LLM (small first: it is the llm default)
  // Why these defaults: docs/models.md#the-default-language-models.
  {
    id: 'qwen2.5-1.5b-instruct-q4_k_m',
    kind: 'llm',
    name: 'Qwen2.5 1.5B Instruct Q4_K_M',
    description:
      'Small chat model for CPUs and small GPUs; official Qwen GGUF. Its size class generates about 24 tokens/s ' +
      'on a 4-thread CPU, well above speaking pace. Calls tools in the Hermes format its chat template describes.',
    defaultFor: 'cpu',
    licence: 'Apache-2.0',
    source: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF',
    files: [
      {
        name: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
        url:
          HF +
          'Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf',
        bytes: QWEN25_15B_BYTES,
        sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
      },
    ],
    engine: { engine: 'llama-gguf', model: 'qwen2.5-1.5b-instruct-q4_k_m.gguf' },
    memoryMiB: llmMemoryMiB(QWEN25_15B_BYTES),
  },
  {
    id: 'qwen3-4b-instruct-2507-q4_k_m',
    kind: 'llm',
    name: 'Qwen3 4B Instruct 2507 Q4_K_M',
    description:
      'Chat model for GPUs with about 4 GB or more: the July 2025 instruct build, which has no thinking mode ' +
      '(nothing to turn off for spoken answers), made for tool calling, with its own chat format in node-llama-cpp; ' +
      'unsloth GGUF, about 2.5 GB.',
    licence: 'Apache-2.0',
    source: 'https://huggingface.co/unsloth/Qwen3-4B-Instruct-2507-GGUF',
    defaultFor: 'gpu',
    files: [
      {
        name: 'Qwen3-4B-Instruct-2507-Q4_K_M.gguf',
        url:
          HF +
          'unsloth/Qwen3-4B-Instruct-2507-GGUF/resolve/a06e946bb6b655725eafa393f4a9745d460374c9/Qwen3-4B-Instruct-2507-Q4_K_M.gguf',
        bytes: QWEN3_4B_2507_BYTES,
        sha256: '3605803b982cb64aead44f6c1b2ae36e3acdb41d8e46c8a94c6533bc4c67e597',
        // Size from two third parties [T2], sha256 from one [T1]: `npm run models -- lock` must measure them.
        unconfirmed: true,
      },
    ],
    engine: { engine: 'llama-gguf', model: 'Qwen3-4B-Instruct-2507-Q4_K_M.gguf' },
    memoryMiB: llmMemoryMiB(QWEN3_4B_2507_BYTES),
  },
  {
    id: 'qwen2.5-7b-instruct-q4_k_m',
    kind: 'llm',
    name: 'Qwen2.5 7B Instruct Q4_K_M',
    description:
      'Larger chat model for GPUs with 8 GB or more (fits with a few thousand tokens of context); bartowski GGUF, ' +
      'about 4.68 GB. Selectable; no machine gets it by default.',
    licence: 'Apache-2.0',
    source: 'https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF',
    files: [
      {
        name: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf',
        url:
          HF +
          'bartowski/Qwen2.5-7B-Instruct-GGUF/resolve/f4b6063c19a94c15fe9031d8afbbb9df7ec8b93f/Qwen2.5-7B-Instruct-Q4_K_M.gguf',
        bytes: QWEN25_7B_BYTES,
        sha256: '65b8fcd92af6b4fefa935c625d1ac27ea29dcb6ee14589c55a8f115ceaaa1423',
      },
    ],
    engine: { engine: 'llama-gguf', model: 'Qwen2.5-7B-Instruct-Q4_K_M.gguf' },
    memoryMiB: llmMemoryMiB(QWEN25_7B_BYTES),
  },

  // ---------------------------------------------------------------- TTS (Piper fp32 first: it is the tts default)
  // Every voice needs espeak-ng-data, which is hundreds of small files: the sherpa archives bundle a
  // copy, so the voices come as archives (no per-file HF download for that directory).
  // The default voice: float32. onnxruntime's int8 convolution (ConvInteger) is slow on x86, so the
  // int8 build synthesizes about 2.2 times slower here (docs/benchmarks.md), for a download 59 MB smaller.
  piperLibritts({
    id: 'vits-piper-en_US-libritts_r-medium',
    name: 'Piper LibriTTS-R medium US English',
    description:
      'Fast VITS voice, 904 speakers, 22,050 Hz, float32. Runs faster than real time on one Raspberry Pi 4 thread ' +
      '(RTF 0.790), and about twice as fast as its int8 build on a laptop CPU.',
    archive: {
      url: GH_TTS + 'vits-piper-en_US-libritts_r-medium.tar.bz2',
      // Size and sha256: two third-party catalogs give the same values; not yet measured by `models lock`.
      bytes: 82_038_311,
      sha256: '10dc268f3e371696d721486123e2705a9fc1faa113491979fde4d88dba1f1b1c',
    },
    // The two files both third parties list in the archive's top folder (beside espeak-ng-data/).
    others: [],
  }),
  piperLibritts({
    id: 'vits-piper-en_US-libritts_r-medium-int8',
    name: 'Piper LibriTTS-R medium US English, int8',
    description:
      'The same voice, int8: a smaller download, and about half as fast as the float32 build on a laptop CPU ' +
      '(onnxruntime\'s int8 convolution is slow on x86).',
    archive: {
      url: GH_TTS + 'vits-piper-en_US-libritts_r-medium-int8.tar.bz2',
      bytes: 23_398_348,
      sha256: '7e4552e239988f4896872822b56e99e0e9e00958164e3f6bdf5ee14391fbe829',
    },
    // The archive's top folder holds these beside the model, tokens and espeak-ng-data/ (the int8 model
    // keeps the fp32 name). Their sizes and sha256 are not published: `npm run models -- lock` measures them.
    others: ['en_US-libritts_r-medium.onnx.json', 'MODEL_CARD'],
  }),
  {
    id: 'kokoro-en-v0_19',
    kind: 'tts',
    name: 'Kokoro English v0.19',
    description:
      'Higher-quality voice, 11 speakers, 24,000 Hz. Slower than real time on a Raspberry Pi 4 (RTF 6.629 on 1 thread, ' +
      '2.774 on 4) and no laptop RTF is published, so it is the choice for stronger machines.',
    licence: 'Apache-2.0 (Kokoro-82M); bundled espeak-ng-data GPL-3.0-or-later',
    source: 'https://huggingface.co/csukuangfj/kokoro-en-v0_19',
    archive: {
      // Only a release asset: no pinned HF copy of this archive is known.
      url: GH_TTS + 'kokoro-en-v0_19.tar.bz2',
      bytes: 319_625_534,
      sha256: '912804855a04745fa77a30be545b3f9a5d15c4d66db00b88cbcd4921df605ac7',
      stripComponents: 1,
    },
    files: [
      // The archive's top folder holds these and espeak-ng-data/. The reference's sizes/sha256 are
      // for the HF mirror's copies (model.onnx 345,555,491 B, 10ff4141…); that the archive holds
      // identical bytes is not established, so none are enforced: `npm run models -- lock` measures them.
      { name: 'model.onnx', unconfirmed: true },
      { name: 'voices.bin', unconfirmed: true },
      { name: 'tokens.txt', unconfirmed: true },
      { name: 'LICENSE', unconfirmed: true },
      { name: 'README.md', unconfirmed: true },
    ],
    engine: {
      engine: 'sherpa-tts',
      family: 'kokoro',
      model: 'model.onnx',
      voices: 'voices.bin',
      tokens: 'tokens.txt',
      dataDir: 'espeak-ng-data',
    },
  },

  // ---------------------------------------------------------------- End of turn (optional: without it, silence alone ends a turn)
  {
    id: 'smart-turn-v3.2-cpu',
    kind: 'turn',
    name: 'Smart Turn v3.2 (CPU, int8)',
    description:
      "Pipecat's end-of-turn model: from the last 8 s of the user's audio, the probability that they have finished " +
      'speaking, so a pause mid-sentence does not end the turn. Optional: without it, a fixed silence ends every turn.',
    licence: 'BSD-2-Clause',
    source: 'https://huggingface.co/pipecat-ai/smart-turn-v3',
    files: [
      {
        name: 'smart-turn-v3.2-cpu.onnx',
        url: HF + 'pipecat-ai/smart-turn-v3/resolve/f766f81d3cfdf7737ac64aad813d91bbfd56bf93/smart-turn-v3.2-cpu.onnx',
        // Size from two sources [T2], sha256 from one [T1] (shared/reference/default-models.md): `npm run models -- lock` must measure them.
        bytes: 8_679_182,
        sha256: '2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f',
        unconfirmed: true,
      },
    ],
    engine: { engine: 'smart-turn', model: 'smart-turn-v3.2-cpu.onnx' },
  },
];

/**
 * Local test models in shared/models (dir is relative to that models root). Sizes and sha256 were
 * measured on those files; the model sha256 values match shared/models/README.md.
 */
export const TEST_CATALOG: readonly ModelEntry[] = [
  {
    id: 'test-vad-silero',
    kind: 'vad',
    name: 'Silero VAD v5 test fixture',
    description: 'The real Silero VAD (v5 export) used by the tests. 16 kHz, window 512 samples.',
    licence: 'MIT',
    dir: 'vad',
    local: true,
    files: [
      {
        name: 'silero_vad.onnx',
        bytes: 2_327_524,
        sha256: '1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3',
      },
    ],
    engine: { engine: 'silero-vad', model: 'silero_vad.onnx' },
  },
  // Streaming before offline: the first stt found in a directory is the stt default.
  {
    id: 'test-stt-espeak-ctc-streaming',
    kind: 'stt',
    name: 'espeak CTC streaming test model',
    description: 'Tiny streaming CTC recognizer trained on espeak-ng speech only; recognises espeak voices, not people.',
    licence: 'test model generated for this project',
    dir: 'stt/espeak-ctc-en-streaming',
    local: true,
    files: [
      {
        name: 'model.onnx',
        bytes: 5_475_273,
        sha256: '2d973f303c21d46ecbe6d049e8478e5ea9d92501d3609997cb4b4dab69a8692f',
      },
      {
        name: 'tokens.txt',
        bytes: 141,
        sha256: 'f3c92c72b706af6ace52de3817f6baf5203d8c5fe02b3fe85d30461bf1beac77',
      },
    ],
    engine: { engine: 'sherpa-online', family: 'zipformer2-ctc', model: 'model.onnx', tokens: 'tokens.txt' },
  },
  {
    id: 'test-stt-espeak-ctc',
    kind: 'stt',
    name: 'espeak CTC offline test model',
    description: 'Tiny offline CTC recognizer trained on espeak-ng speech only; recognises espeak voices, not people.',
    licence: 'test model generated for this project',
    dir: 'stt/espeak-ctc-en',
    local: true,
    files: [
      {
        name: 'model.onnx',
        bytes: 8_149_398,
        sha256: 'cce4f35d41ab3954eec5c88d859937ffb5b10f07ec0df49a621fc58c33843f06',
      },
      {
        name: 'tokens.txt',
        bytes: 141,
        sha256: 'f3c92c72b706af6ace52de3817f6baf5203d8c5fe02b3fe85d30461bf1beac77',
      },
    ],
    engine: { engine: 'sherpa-offline', family: 'zipformer-ctc', model: 'model.onnx', tokens: 'tokens.txt' },
  },
  {
    id: 'test-llm-stories260k',
    kind: 'llm',
    name: 'stories260K test model',
    description: 'A 260K-parameter llama trained on TinyStories; answers with story-like text. Loads in well under a second.',
    licence: 'MIT',
    dir: 'llm',
    local: true,
    files: [
      {
        name: 'stories260K.gguf',
        bytes: 1_185_376,
        sha256: '270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d',
      },
    ],
    engine: { engine: 'llama-gguf', model: 'stories260K.gguf' },
  },
  // Formant before echo: the first tts found in a directory is the tts default.
  {
    id: 'test-tts-formant',
    kind: 'tts',
    name: 'Formant robot voice test model',
    description: 'Not a trained voice: a piper-format graph that buzzes formant units per phoneme. 22,050 Hz.',
    licence: 'test model generated for this project',
    dir: 'tts-synthetic',
    local: true,
    files: [
      {
        name: 'formant-piper.onnx',
        bytes: 3_776_397,
        sha256: '45b442ae4611bf9862fd9be19491ed52973f2b3cd3020fb76fef5b09d1cc3e30',
      },
      {
        name: 'tokens.txt',
        bytes: 811,
        sha256: '34f7111efd65f86d5e19638ac08c978a9ac38db2d01b23adc9700d835d0fe8e8',
      },
    ],
    engine: { engine: 'sherpa-tts', family: 'vits', model: 'formant-piper.onnx', tokens: 'tokens.txt', dataDir: 'system' },
  },
  {
    id: 'test-tts-echo',
    kind: 'tts',
    name: 'Phoneme echo test model',
    description: 'Outputs the phoneme ids times 0.001, so tests can read back what the phonemizer produced.',
    licence: 'test model generated for this project',
    dir: 'tts-synthetic',
    local: true,
    files: [
      {
        name: 'echo-piper.onnx',
        bytes: 419,
        sha256: '5119a72255de2aa028854845696f21b292506a6819ea89683a3b6e77ace25a35',
      },
      {
        name: 'tokens.txt',
        bytes: 811,
        sha256: '34f7111efd65f86d5e19638ac08c978a9ac38db2d01b23adc9700d835d0fe8e8',
      },
    ],
    engine: { engine: 'sherpa-tts', family: 'vits', model: 'echo-piper.onnx', tokens: 'tokens.txt', dataDir: 'system' },
  },
  {
    id: 'test-turn-eot-espeak',
    kind: 'turn',
    name: 'espeak end-of-turn test model',
    description: 'Not Smart Turn: a small model with its interface, trained on espeak speech only; tells finished sentences from cut-off ones.',
    licence: 'test model generated for this project',
    dir: 'turn',
    local: true,
    files: [
      {
        name: 'eot-espeak.onnx',
        bytes: 657_170,
        sha256: '11a604de82bd971101019ada95000fa28d72486fdcc5e363c4cac6bc46a9e5c2',
      },
    ],
    engine: { engine: 'smart-turn', model: 'eot-espeak.onnx' },
  },
];

/** Defaults first, so a directory holding both finds the real models before the test ones. */
export const ALL_MODELS: readonly ModelEntry[] = [...DEFAULT_CATALOG, ...TEST_CATALOG];

export function findEntry(id: string): ModelEntry | undefined {
  return ALL_MODELS.find((e) => e.id === id);
}
