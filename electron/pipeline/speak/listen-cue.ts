import { listenCue, type ListenCue } from '../../audio/chime';
import type { EventHub } from '../events';
import type { AudioOutput } from './output';

export interface ListenCueDeps {
  output: AudioOutput;
  events: EventHub;
  /** The output's sample rate (the voice's: a render mixes one rate). */
  sampleRate: () => number;
  /** The setting that turns the cues off (`desktop.listenChime`), read at each cue. */
  enabled: () => boolean;
}

/**
 * The one-shot listening cues: a short rising sound when the microphone opens for a turn, a falling
 * one when it closes. They go to the assistant's output, so the echo canceller has them as a
 * reference (and `talk` writes them), but they belong to no answer: the assistant's phase, barge-in
 * and the reports never see them.
 */
export class ListenCues {
  private made: { rate: number; start: Float32Array; stop: Float32Array } | null = null;

  constructor(private readonly deps: ListenCueDeps) {}

  play(cue: ListenCue, atMs: number): void {
    if (!this.deps.enabled()) return;
    const rate = this.deps.sampleRate();
    if (this.made?.rate !== rate) this.made = { rate, start: listenCue('start', rate), stop: listenCue('stop', rate) };
    this.deps.output.enqueue(this.made[cue], rate, atMs);
    this.deps.events.emit({ type: 'listen-cue', t: atMs, cue });
  }
}
