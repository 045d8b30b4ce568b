import { resample } from '../audio/resample';
import { VAD_SAMPLE_RATE } from '../engines/vad';
import type { TimelineOutput } from './output';

/**
 * Laptop speakers into the laptop microphone: mixes what the assistant played back into the input,
 * `gain` times as loud and `delayMs` later. Used by `talk --echo` and tests of self-interruption.
 */
export class EchoSimulator {
  private readonly cache = new WeakMap<object, Float32Array>();

  constructor(
    private readonly output: TimelineOutput,
    private readonly gain: number,
    private readonly delayMs: number,
  ) {}

  /** Adds the echo into `frame` (16 kHz), which starts at `startMs` on the input's timeline. */
  mixInto(frame: Float32Array, startMs: number): void {
    const from = startMs - this.delayMs;
    const to = from + (frame.length / VAD_SAMPLE_RATE) * 1000;
    for (const chunk of this.output.chunks()) {
      const chunkEnd = chunk.startMs + (chunk.samples.length / chunk.sampleRate) * 1000;
      if (chunkEnd <= from || chunk.startMs >= to) continue;
      let at16k = this.cache.get(chunk);
      if (!at16k) {
        at16k = resample(chunk.samples, chunk.sampleRate, VAD_SAMPLE_RATE);
        this.cache.set(chunk, at16k);
      }
      // A chunk cut short by a barge-in plays only up to its new end.
      const playable = Math.min(at16k.length, Math.round((chunk.samples.length / chunk.sampleRate) * VAD_SAMPLE_RATE));
      const offset = Math.round(((from - chunk.startMs) / 1000) * VAD_SAMPLE_RATE);
      for (let i = 0; i < frame.length; i++) {
        const j = offset + i;
        if (j >= 0 && j < playable) frame[i]! += this.gain * at16k[j]!;
      }
    }
  }
}

/** `--echo 0.5:30` -> gain 0.5, delay 30 ms. */
export function parseEchoSpec(spec: string): { gain: number; delayMs: number } | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*$/.exec(spec);
  if (!m) return null;
  const gain = Number(m[1]);
  const delayMs = Number(m[2]);
  return gain <= 4 && delayMs <= 2000 ? { gain, delayMs } : null;
}
