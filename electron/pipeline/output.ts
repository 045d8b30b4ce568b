/** Where the assistant's voice goes: the speaker in the app, a timeline in `talk` and tests. */
export interface ScheduledAudio {
  startMs: number;
  endMs: number;
}

export interface AudioOutput {
  /** Queues audio after whatever is queued; returns when it will play on the pipeline clock. */
  enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio;
  /** Stops at `atMs`: nothing queued plays after it. Returns the time playback actually stopped. */
  stop(atMs: number): number;
  /** When the queue runs dry (<= atMs when idle). */
  readonly endMs: number;
}

interface Placed {
  startMs: number;
  samples: Float32Array;
  sampleRate: number;
}

/**
 * A speaker simulated on the pipeline clock: audio plays back to back from when it is queued, and
 * what played is kept so it can be written to a file on the input's timeline.
 */
export class TimelineOutput implements AudioOutput {
  private readonly placed: Placed[] = [];
  private queueEnd = 0;

  get endMs(): number {
    return this.queueEnd;
  }

  enqueue(samples: Float32Array, sampleRate: number, atMs: number): ScheduledAudio {
    const startMs = Math.max(atMs, this.queueEnd);
    const endMs = startMs + (samples.length / sampleRate) * 1000;
    this.placed.push({ startMs, samples, sampleRate });
    this.queueEnd = endMs;
    return { startMs, endMs };
  }

  stop(atMs: number): number {
    // Cut every placed chunk at atMs; chunks that had not started are dropped.
    for (let i = this.placed.length - 1; i >= 0; i--) {
      const p = this.placed[i]!;
      if (p.startMs >= atMs) this.placed.splice(i, 1);
      else {
        const keep = Math.floor(((atMs - p.startMs) / 1000) * p.sampleRate);
        if (keep < p.samples.length) p.samples = p.samples.subarray(0, keep);
      }
    }
    this.queueEnd = Math.min(this.queueEnd, atMs);
    return atMs;
  }

  /** Everything played, mixed onto one buffer starting at time 0. */
  render(sampleRate: number, minDurationMs = 0): Float32Array {
    const endMs = Math.max(minDurationMs, ...this.placed.map((p) => p.startMs + (p.samples.length / p.sampleRate) * 1000));
    const out = new Float32Array(Math.ceil((endMs / 1000) * sampleRate));
    for (const p of this.placed) {
      if (p.sampleRate !== sampleRate) throw new Error('TimelineOutput.render: mixed sample rates');
      const o = Math.round((p.startMs / 1000) * sampleRate);
      for (let i = 0; i < p.samples.length && o + i < out.length; i++) out[o + i]! += p.samples[i]!;
    }
    return out;
  }

  /** What is placed on the timeline (echo simulation reads it). */
  chunks(): readonly Placed[] {
    return this.placed;
  }
}
