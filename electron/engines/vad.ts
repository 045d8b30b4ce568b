import * as ort from 'onnxruntime-node';
import type { ResolvedModel } from '../../native-models/types';
import { UserError } from '../errors';

export const VAD_SAMPLE_RATE = 16000;
/** Silero works on 512-sample (32 ms) windows at 16 kHz. */
export const VAD_WINDOW = 512;
export const VAD_WINDOW_MS = (VAD_WINDOW / VAD_SAMPLE_RATE) * 1000;

/** Speech ends once the probability falls this far below the threshold (Silero's own hysteresis). */
const HYSTERESIS = 0.15;

export interface VadResult {
  /** Speech probability for the window, 0-1. */
  probability: number;
  /** Whether speech is present at the window's end, after hysteresis on the threshold. */
  speech: boolean;
}

/** A speech probability and decision per 32 ms window. */
export interface VoiceActivityDetector {
  /** Feeds exactly one window (VAD_WINDOW samples). */
  accept(window: Float32Array): Promise<VadResult>;
  /** Applies a new speech threshold from the next window on (no model is reloaded). */
  setThreshold(threshold: number): void;
  reset(): void;
  dispose(): Promise<void>;
  readonly info: { id: string; loadMs: number; threshold: number };
}

/** The two published Silero ONNX layouts: v5 (one state tensor, 64 samples of context) and v4 (h and c). */
type Layout = 'v5' | 'v4';
const CONTEXT = 64;

/**
 * Silero VAD run directly in onnxruntime, so each window yields a probability (the UI draws it,
 * the threshold is a plain comparison that changes live). sherpa-onnx's `Vad` only gives decisions.
 */
export class SileroVad implements VoiceActivityDetector {
  private readonly layout: Layout;
  private state: ort.Tensor[] = [];
  private readonly context = new Float32Array(CONTEXT);
  private readonly sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE)]), []);
  private speaking = false;
  readonly info: { id: string; loadMs: number; threshold: number };

  private constructor(
    private readonly session: ort.InferenceSession,
    id: string,
    threshold: number,
    loadMs: number,
  ) {
    this.layout = session.inputNames.includes('state') ? 'v5' : 'v4';
    this.info = { id, loadMs, threshold };
    this.reset();
  }

  static async load(resolved: ResolvedModel, threshold: number): Promise<SileroVad> {
    const t0 = performance.now();
    const spec = resolved.entry.engine;
    const model = spec.engine === 'silero-vad' ? resolved.paths[spec.model] : undefined;
    try {
      if (!model) throw new Error(`${resolved.entry.id} is not a Silero VAD model`);
      const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 });
      const names = session.inputNames;
      if (!names.includes('input') || !(names.includes('state') || names.includes('h'))) {
        throw new Error(`unexpected model inputs ${names.join(', ')} (expected Silero v4 or v5)`);
      }
      return new SileroVad(session, resolved.entry.id, threshold, performance.now() - t0);
    } catch (e) {
      throw new UserError(
        `Could not load the VAD model '${resolved.entry.id}' from ${resolved.dir}: ${(e as Error).message}. ` +
          `Re-download it with: npm run models -- fetch ${resolved.entry.id}`,
        'model-load',
      );
    }
  }

  async accept(window: Float32Array): Promise<VadResult> {
    if (window.length !== VAD_WINDOW) throw new Error(`VAD windows are ${VAD_WINDOW} samples, got ${window.length}`);
    let probability: number;
    if (this.layout === 'v5') {
      const x = new Float32Array(CONTEXT + VAD_WINDOW);
      x.set(this.context);
      x.set(window, CONTEXT);
      this.context.set(window.subarray(VAD_WINDOW - CONTEXT));
      const out = await this.session.run({ input: new ort.Tensor('float32', x, [1, x.length]), state: this.state[0]!, sr: this.sr });
      this.state = [out['stateN']!];
      probability = (out['output']!.data as Float32Array)[0]!;
    } else {
      const out = await this.session.run({
        input: new ort.Tensor('float32', window, [1, VAD_WINDOW]),
        h: this.state[0]!,
        c: this.state[1]!,
        sr: this.sr,
      });
      this.state = [out['hn']!, out['cn']!];
      probability = (out['output']!.data as Float32Array)[0]!;
    }
    const t = this.info.threshold;
    this.speaking = this.speaking ? probability >= t - HYSTERESIS : probability >= t;
    return { probability, speech: this.speaking };
  }

  setThreshold(threshold: number): void {
    this.info.threshold = threshold;
  }

  reset(): void {
    this.context.fill(0);
    this.speaking = false;
    this.state =
      this.layout === 'v5'
        ? [new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128])]
        : [new ort.Tensor('float32', new Float32Array(2 * 64), [2, 1, 64]), new ort.Tensor('float32', new Float32Array(2 * 64), [2, 1, 64])];
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
