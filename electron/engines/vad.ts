import sherpa, { type Vad } from 'sherpa-onnx-node';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';

export const VAD_SAMPLE_RATE = 16000;
/** Silero v5 works on 512-sample (32 ms) windows at 16 kHz. */
export const VAD_WINDOW = 512;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;

/** A speech decision per 32 ms window. */
export interface VoiceActivityDetector {
  /** Feeds exactly one window (VAD_WINDOW samples); returns whether speech is present at its end. */
  accept(window: Float32Array): boolean;
  /** Applies a new speech threshold from the next window on. */
  setThreshold(threshold: number): void;
  reset(): void;
  readonly info: { id: string; loadMs: number; threshold: number };
}

/**
 * Silero through sherpa-onnx `Vad`. sherpa's own hangover (minSilenceDuration) and minimum speech
 * are set to their smallest useful values: turn policy (minimum speech, silence threshold) lives in
 * the pure segmenter, so that changing it never touches the model.
 */
export class SileroVad implements VoiceActivityDetector {
  private vad: Vad;
  private threshold: number;
  readonly info: { id: string; loadMs: number; threshold: number };

  private constructor(private readonly resolved: ResolvedModel, threshold: number, loadMs: number) {
    this.threshold = threshold;
    this.vad = this.create(threshold);
    this.info = { id: resolved.entry.id, loadMs, threshold };
  }

  static load(resolved: ResolvedModel, threshold: number): SileroVad {
    const t0 = performance.now();
    try {
      const vad = new SileroVad(resolved, threshold, 0);
      vad.info.loadMs = performance.now() - t0;
      return vad;
    } catch (e) {
      throw new UserError(
        `Could not load the VAD model '${resolved.entry.id}' from ${resolved.dir}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
  }

  private create(threshold: number): Vad {
    const spec = this.resolved.entry.engine;
    if (spec.engine !== 'silero-vad') throw new Error(`model ${this.resolved.entry.id} is not a Silero VAD`);
    const model = this.resolved.paths[spec.model];
    if (!model) throw new Error(`model ${this.resolved.entry.id} has no file ${spec.model}`);
    return new sherpa.Vad(
      {
        sileroVad: {
          model,
          threshold,
          minSilenceDuration: 0.03,
          minSpeechDuration: 0.05,
          // Segments are not used; keep sherpa from splitting long speech on its own.
          maxSpeechDuration: 600,
          windowSize: VAD_WINDOW,
        },
        sampleRate: VAD_SAMPLE_RATE,
        numThreads: 1,
        debug: false,
      },
      // sherpa holds the ongoing segment until it ends (we never read it); 60 s covers any sane turn
      // without its overflow warnings. ~4 MB.
      60,
    );
  }

  accept(window: Float32Array): boolean {
    this.vad.acceptWaveform(window);
    // We only want decisions; drop finished segments so sherpa's buffer never fills.
    while (!this.vad.isEmpty()) this.vad.pop();
    return this.vad.isDetected();
  }

  /**
   * sherpa-onnx fixes the threshold at construction, so a new detector is made. The session
   * (not the model file) is rebuilt; it takes a few milliseconds and happens between windows.
   */
  setThreshold(threshold: number): void {
    if (threshold === this.threshold) return;
    this.threshold = threshold;
    this.info.threshold = threshold;
    this.vad = this.create(threshold);
  }

  reset(): void {
    this.vad.reset();
  }
}
