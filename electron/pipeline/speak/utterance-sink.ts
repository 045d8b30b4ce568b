import type { AudioOutput, ScheduledAudio } from './output';

/**
 * Where an utterance's audio goes. `onScheduled` is told where each piece landed on the output
 * once it is queued there: at once for a sink that plays, later (or never) for one that holds.
 */
export interface UtteranceSink {
  play(samples: Float32Array, sampleRate: number, atMs: number, onScheduled: (audio: ScheduledAudio) => void): void;
  /** Nothing more of this sink's audio reaches the output; what it held is forgotten. */
  drop(): void;
}

/** Plays straight away, after whatever the output already has queued. */
export class PlayingSink implements UtteranceSink {
  private dropped = false;

  constructor(private readonly output: AudioOutput) {}

  play(samples: Float32Array, sampleRate: number, atMs: number, onScheduled: (audio: ScheduledAudio) => void): void {
    if (!this.dropped) onScheduled(this.output.enqueue(samples, sampleRate, atMs));
  }

  drop(): void {
    this.dropped = true;
  }
}

interface Held {
  samples: Float32Array;
  sampleRate: number;
  onScheduled: (audio: ScheduledAudio) => void;
}

/**
 * Keeps audio back until it is released (then it plays, and what follows plays at once) or
 * dropped (then none of it ever plays). An answer prepared before the user's turn is committed
 * is synthesized into one of these: ready to play the instant the turn ends, silent if it goes on.
 */
export class HeldSink implements UtteranceSink {
  private held: Held[] = [];
  private state: 'holding' | 'released' | 'dropped' = 'holding';

  constructor(private readonly output: AudioOutput) {}

  get holding(): boolean {
    return this.state === 'holding';
  }

  /** How much audio (ms) is waiting for release. */
  get heldMs(): number {
    return this.held.reduce((sum, h) => sum + (h.samples.length / h.sampleRate) * 1000, 0);
  }

  play(samples: Float32Array, sampleRate: number, atMs: number, onScheduled: (audio: ScheduledAudio) => void): void {
    if (this.state === 'released') onScheduled(this.output.enqueue(samples, sampleRate, atMs));
    else if (this.state === 'holding') this.held.push({ samples, sampleRate, onScheduled });
  }

  /** Plays what was held, in order, from `atMs`; later audio plays as it comes. */
  release(atMs: number): void {
    if (this.state !== 'holding') return;
    this.state = 'released';
    for (const h of this.held.splice(0)) h.onScheduled(this.output.enqueue(h.samples, h.sampleRate, atMs));
  }

  drop(): void {
    this.state = 'dropped';
    this.held = [];
  }
}
