import sherpa, { type OfflineTts, type OfflineTtsModelConfig } from 'sherpa-onnx-node';
import { existsSync } from 'node:fs';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';
import { MAX_SPOKEN_CHARS, splitForSpeech } from '../text/speech-limits';

/**
 * The longest text one synthesize() call accepts, about 20 minutes of speech (an answer of 4,096
 * tokens). What one call returns is held whole, about 6 kB of samples per character, so a longer
 * text is refused rather than allowed to take gigabytes; an answer is spoken clause by clause.
 */
export const MAX_SYNTHESIZE_CHARS = 20_000;

/** Where Debian/Ubuntu (and Fedora) put espeak-ng's phonemizer data. */
const SYSTEM_ESPEAK_DATA = [
  '/usr/lib/x86_64-linux-gnu/espeak-ng-data',
  '/usr/lib/aarch64-linux-gnu/espeak-ng-data',
  '/usr/share/espeak-ng-data',
  '/usr/lib64/espeak-ng-data',
];

function systemEspeakData(): string {
  const found = SYSTEM_ESPEAK_DATA.find((d) => existsSync(d));
  if (!found) {
    throw new UserError(
      `The voice needs espeak-ng's phonemizer data, which was not found (looked in ${SYSTEM_ESPEAK_DATA.join(', ')}). ` +
        `Install it (Debian/Ubuntu: sudo apt-get install espeak-ng-data) or use a voice that bundles espeak-ng-data.`,
      'espeak-data-missing',
    );
  }
  return found;
}

export interface SpeechSynthesizer {
  readonly sampleRate: number;
  readonly info: { id: string; sampleRate: number; numSpeakers: number; loadMs: number };
  /**
   * Synthesizes one clause. Resolves with its samples, or null when `signal` aborted first:
   * a cancelled clause yields no audio at all. Text longer than MAX_SYNTHESIZE_CHARS is refused.
   */
  synthesize(text: string, opts: { speakerId: number; speed: number; signal?: AbortSignal }): Promise<Float32Array | null>;
}

export class SherpaTts implements SpeechSynthesizer {
  readonly info: SpeechSynthesizer['info'];

  private constructor(private readonly tts: OfflineTts, id: string, loadMs: number) {
    this.info = { id, sampleRate: tts.sampleRate, numSpeakers: tts.numSpeakers, loadMs };
  }

  get sampleRate(): number {
    return this.tts.sampleRate;
  }

  static async load(resolved: ResolvedModel, numThreads = 1): Promise<SherpaTts> {
    const spec = resolved.entry.engine;
    if (spec.engine !== 'sherpa-tts') throw new Error(`${resolved.entry.id} is not a TTS voice`);
    const path = (name: string | undefined, role: string): string => {
      const p = name ? resolved.paths[name] : undefined;
      if (!p) throw new Error(`catalog entry ${resolved.entry.id} names no ${role} file`);
      return p;
    };
    const dataDir =
      spec.dataDir === 'system' ? systemEspeakData() : spec.dataDir ? `${resolved.dir}/${spec.dataDir}` : undefined;
    const model: OfflineTtsModelConfig = { numThreads, debug: false };
    const tokens = path(spec.tokens, 'tokens');
    const lexicon = spec.lexicon ? path(spec.lexicon, 'lexicon') : undefined;
    switch (spec.family) {
      case 'vits':
        model.vits = { model: path(spec.model, 'model'), tokens, dataDir, lexicon };
        break;
      case 'kokoro':
        model.kokoro = {
          model: path(spec.model, 'model'),
          voices: path(spec.voices, 'voices'),
          tokens,
          dataDir,
          lexicon,
        };
        break;
      case 'kitten':
        model.kitten = {
          model: path(spec.model, 'model'),
          voices: path(spec.voices, 'voices'),
          tokens,
          dataDir,
        };
        break;
      case 'matcha':
        model.matcha = {
          acousticModel: path(spec.model, 'model'),
          vocoder: path(spec.vocoder, 'vocoder'),
          tokens,
          dataDir,
          lexicon,
        };
        break;
    }
    const t0 = performance.now();
    try {
      // One sentence batch per call: we already feed it clause by clause.
      const tts = await sherpa.OfflineTts.createAsync({ model, maxNumSentences: 1 });
      return new SherpaTts(tts, resolved.entry.id, performance.now() - t0);
    } catch (e) {
      throw new UserError(
        `Could not load the voice '${resolved.entry.id}' from ${resolved.dir}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
  }

  async synthesize(
    text: string,
    opts: { speakerId: number; speed: number; signal?: AbortSignal },
  ): Promise<Float32Array | null> {
    const { signal } = opts;
    if (signal?.aborted) return null;
    if (text.length > MAX_SYNTHESIZE_CHARS) {
      throw new RangeError(
        `Text too long to speak in one piece: ${text.length.toLocaleString('en-US')} characters, ` +
          `the most is ${MAX_SYNTHESIZE_CHARS.toLocaleString('en-US')}; cut it into clauses first.`,
      );
    }
    const sid = Math.min(Math.max(0, Math.trunc(opts.speakerId)), Math.max(0, this.tts.numSpeakers - 1));
    if (text.length <= MAX_SPOKEN_CHARS) return this.generate(text, sid, opts.speed, signal);
    // The voice's memory grows with what one call gets (sherpa's sentence split needs
    // punctuation), so a longer text goes to it a sentence-sized piece at a time.
    const parts: Float32Array[] = [];
    for (const piece of splitForSpeech(text, MAX_SPOKEN_CHARS)) {
      const samples = await this.generate(text.slice(piece.start, piece.end), sid, opts.speed, signal);
      if (!samples) return null;
      parts.push(samples);
    }
    const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
    return out;
  }

  private async generate(text: string, sid: number, speed: number, signal?: AbortSignal): Promise<Float32Array | null> {
    const audio = await this.tts.generateAsync({
      text,
      sid,
      speed,
      // Electron's V8 memory cage forbids external buffers.
      enableExternalBuffer: false,
      // Stops synthesis early when the reply was cancelled (sherpa may still finish one batch).
      onProgress: () => (signal?.aborted ? 0 : 1),
    });
    if (signal?.aborted) return null;
    return audio.samples;
  }
}
