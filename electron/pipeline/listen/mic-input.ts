import { VAD_SAMPLE_RATE, VAD_WINDOW, VAD_WINDOW_MS } from '../../engines/vad-window';
import type { Clock } from '../clock';

/**
 * Cuts microphone audio of any length into whole VAD windows. Non-finite samples are zeroed and
 * values clamped, so a broken capture cannot poison the models.
 */
export class WindowFramer {
  private readonly partial = new Float32Array(VAD_WINDOW);
  private length = 0;

  /** The windows this audio completes; a remainder waits for the next call. */
  push(input: Float32Array): Float32Array[] {
    const windows: Float32Array[] = [];
    let o = 0;
    while (o < input.length) {
      const n = Math.min(VAD_WINDOW - this.length, input.length - o);
      for (let i = 0; i < n; i++) {
        const v = input[o + i]!;
        this.partial[this.length + i] = Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0;
      }
      this.length += n;
      o += n;
      if (this.length === VAD_WINDOW) {
        windows.push(this.partial.slice());
        this.length = 0;
      }
    }
    return windows;
  }
}

/** Input arriving this much later than its place on the clock means the input paused. */
const RETIE_AFTER_MS = 250;

/**
 * Input time (ms of audio received) tied to the pipeline clock. Turn boundaries are found in input
 * time, engine stages are timed on the clock; reports and events use the clock throughout.
 */
export class InputTimeline {
  private samples = 0;
  private toClockMs: number | null = null;

  constructor(private readonly clock: Clock) {}

  /** Input time: milliseconds of audio received so far. */
  get ms(): number {
    return (this.samples / VAD_SAMPLE_RATE) * 1000;
  }

  /** Input time on the pipeline clock (before any input: as if the audio so far ended now). */
  toClock(inputMs: number): number {
    return inputMs + (this.toClockMs ?? this.clock.now() - this.ms);
  }

  /** Pipeline clock time as input time (the inverse of toClock). */
  toInput(clockMs: number): number {
    return clockMs - (this.toClockMs ?? this.clock.now() - this.ms);
  }

  /**
   * Where the window about to be heard starts on the clock. Input time and the clock are tied once,
   * at the first window: input arrives in jittery bursts, but its samples are evenly spaced, so the
   * echo reference is cut on the input's own timeline. (A whole number of samples, so every piece
   * of the reference lands on the same sample grid.) Audio that resumes after a pause in the input
   * (microphone muted, window reloaded) is tied again, or every later time would be off by the
   * pause. A `backlog` of queued windows is not a pause: that lag is real latency.
   */
  windowStart(backlog: boolean): number {
    const now = this.clock.now();
    if (this.toClockMs !== null && !backlog && now - (this.ms + VAD_WINDOW_MS + this.toClockMs) > RETIE_AFTER_MS) this.toClockMs = null;
    this.toClockMs ??= Math.round((now - (this.ms + VAD_WINDOW_MS)) * (VAD_SAMPLE_RATE / 1000)) / (VAD_SAMPLE_RATE / 1000);
    return this.ms + this.toClockMs;
  }

  /** A window of `length` samples has been heard. */
  advance(length: number): void {
    this.samples += length;
  }
}
