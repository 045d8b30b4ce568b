import type { AudioOutput } from '../speak/output';

/**
 * Laptop speakers into the laptop microphone: mixes what the assistant played back into the input,
 * `gain` times as loud and `delayMs` later. Used by `talk --echo` and tests of self-interruption.
 */
export class EchoSimulator {
  constructor(
    private readonly output: AudioOutput,
    private readonly gain: number,
    private readonly delayMs: number,
  ) {}

  /** Adds the echo into `frame` (16 kHz), which starts at `startMs` on the input's timeline. */
  mixInto(frame: Float32Array, startMs: number): void {
    const played = this.output.audible(startMs - this.delayMs, frame.length);
    if (!played) return;
    for (let i = 0; i < frame.length; i++) frame[i]! += this.gain * played[i]!;
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
