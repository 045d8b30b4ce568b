/**
 * Stand-ins for the two default voices as sherpa-onnx loads them: a Piper VITS voice
 * (vits-piper-en_US-libritts_r-medium-int8: input, input_lengths, scales, sid → output [1, 1, T],
 * with the metadata sherpa-onnx's piper export adds) and Kokoro v0.19 (kokoro-en-v0_19: tokens,
 * style [1, 256], speed → audio [T], its metadata with style_dim 511,1,256 and 11 speakers, and a
 * voices.bin of 11 × 511 × 256 floats). Both phonemize with espeak-ng, so their espeak-ng-data/ is
 * a link to the system's copy. The audio is a quiet constant, a fixed number of samples per phoneme.
 */
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOnnxModel, FLOAT, INT64 } from '../onnx-builder';
import { kokoroSymbols, piperSymbols, tokensText } from './tokens';

/** Samples per phoneme (Piper's hop length; about Kokoro's too). */
const SAMPLES_PER_PHONEME = 256;

/** Where Debian/Ubuntu and Fedora keep espeak-ng's data (what the voices' bundled copy stands in for). */
const ESPEAK_DATA = ['/usr/lib/x86_64-linux-gnu/espeak-ng-data', '/usr/lib/aarch64-linux-gnu/espeak-ng-data', '/usr/share/espeak-ng-data', '/usr/lib64/espeak-ng-data'];

/** Links `dir`/`name` to the system's espeak-ng-data, or says why it cannot. */
export function linkEspeakData(dir: string, name: string): void {
  const found = ESPEAK_DATA.find((d) => existsSync(d));
  if (!found) throw new Error(`the voices need espeak-ng's data, which is not installed (looked in ${ESPEAK_DATA.join(', ')})`);
  symlinkSync(found, path.join(dir, name), 'dir');
}

/** The phoneme ids as quiet audio, SAMPLES_PER_PHONEME samples each: [1, T] int64, reshaped (at reshape_axes), tiled. */
const audioNodes = (ids: string, out: string, reshape: 'Unsqueeze' | 'Squeeze') => [
  { op: 'Cast', inputs: [ids], outputs: ['ids_float'], attributes: { to: { i: FLOAT } } },
  { op: 'Mul', inputs: ['ids_float', 'quiet'], outputs: ['level'] },
  { op: reshape, inputs: ['level', 'reshape_axes'], outputs: ['level_shaped'] },
  { op: 'Tile', inputs: ['level_shaped', 'repeats'], outputs: [out] },
];

export const PIPER_LIBRITTS_R = { sampleRate: 22050, speakers: 904 };

export function piperModel(v = PIPER_LIBRITTS_R): Uint8Array {
  return buildOnnxModel({
    inputs: [
      { name: 'input', type: INT64, shape: [1, 'phonemes'] },
      { name: 'input_lengths', type: INT64, shape: [1] },
      { name: 'scales', type: FLOAT, shape: [3] },
      { name: 'sid', type: INT64, shape: [1] },
    ],
    outputs: [{ name: 'output', type: FLOAT, shape: [1, 1, 'time'] }],
    constants: [
      { name: 'quiet', dims: [], values: [0.0001] },
      { name: 'reshape_axes', dims: [1], values: [1], type: INT64 },
      { name: 'repeats', dims: [3], values: [1, 1, SAMPLES_PER_PHONEME], type: INT64 },
    ],
    // [1, T] → [1, 1, T] → [1, 1, T × SAMPLES_PER_PHONEME]
    nodes: audioNodes('input', 'output', 'Unsqueeze'),
    metadata: {
      model_type: 'vits',
      comment: 'piper',
      language: 'English',
      voice: 'en-us',
      version: '1',
      has_espeak: '1',
      has_g2pw: '0',
      n_speakers: String(v.speakers),
      sample_rate: String(v.sampleRate),
    },
  });
}

export interface PiperFiles {
  model: string;
  tokens: string;
  dataDir: string;
  /** Other files the catalog lists (the .onnx.json config, MODEL_CARD): written with placeholder text. */
  others: string[];
}

export function writePiperVoice(dir: string, files: PiperFiles): void {
  const symbols = piperSymbols();
  writeFileSync(path.join(dir, files.model), piperModel());
  writeFileSync(path.join(dir, files.tokens), tokensText(symbols));
  for (const name of files.others) {
    const config = { audio: { sample_rate: PIPER_LIBRITTS_R.sampleRate }, espeak: { voice: 'en-us' }, num_speakers: PIPER_LIBRITTS_R.speakers, phoneme_id_map: Object.fromEntries(symbols.map((s, i) => [s, [i]])) };
    writeFileSync(path.join(dir, name), name.endsWith('.json') ? JSON.stringify(config) : 'A layout stand-in, not a voice.\n');
  }
  linkEspeakData(dir, files.dataDir);
}

/** Kokoro v0.19: 11 speakers, a style vector of 256 per speaker and token count (up to 511), 24 kHz. */
export const KOKORO_V0_19 = {
  sampleRate: 24000,
  speakers: ['af', 'af_bella', 'af_nicole', 'af_sarah', 'af_sky', 'am_adam', 'am_michael', 'bf_emma', 'bf_isabella', 'bm_george', 'bm_lewis'],
  maxTokens: 511,
  styleDim: 256,
};

export function kokoroMetadata(v = KOKORO_V0_19): Record<string, string> {
  return {
    model_type: 'kokoro',
    language: 'English',
    has_espeak: '1',
    sample_rate: String(v.sampleRate),
    version: '1',
    voice: 'en-us',
    style_dim: `${v.maxTokens},1,${v.styleDim}`,
    n_speakers: String(v.speakers.length),
    speaker_names: v.speakers.join(','),
    comment: 'A layout stand-in for kokoro v0.19',
  };
}

export function kokoroModel(v = KOKORO_V0_19, metadata = kokoroMetadata(v)): Uint8Array {
  return buildOnnxModel({
    inputs: [
      { name: 'tokens', type: INT64, shape: [1, 'tokens1'] },
      { name: 'style', type: FLOAT, shape: [1, v.styleDim] },
      { name: 'speed', type: FLOAT, shape: [1] },
    ],
    outputs: [{ name: 'audio', type: FLOAT, shape: ['audio0'] }],
    constants: [
      { name: 'quiet', dims: [], values: [0.0001] },
      { name: 'reshape_axes', dims: [1], values: [0], type: INT64 },
      { name: 'repeats', dims: [1], values: [SAMPLES_PER_PHONEME], type: INT64 },
    ],
    // [1, T] → [T] → [T × SAMPLES_PER_PHONEME]
    nodes: audioNodes('tokens', 'audio', 'Squeeze'),
    metadata,
  });
}

export interface KokoroFiles {
  model: string;
  voices: string;
  tokens: string;
  dataDir: string;
  /** Other files the catalog lists (LICENSE, README.md): written with placeholder text. */
  others: string[];
}

export function writeKokoroVoice(dir: string, files: KokoroFiles, opts: { metadata?: Record<string, string> } = {}): void {
  const v = KOKORO_V0_19;
  writeFileSync(path.join(dir, files.model), kokoroModel(v, opts.metadata));
  // One [maxTokens, 1, styleDim] float32 block per speaker.
  writeFileSync(path.join(dir, files.voices), new Uint8Array(v.speakers.length * v.maxTokens * v.styleDim * 4));
  writeFileSync(path.join(dir, files.tokens), tokensText(kokoroSymbols()));
  for (const name of files.others) writeFileSync(path.join(dir, name), 'A layout stand-in, not a voice.\n');
  linkEspeakData(dir, files.dataDir);
}
