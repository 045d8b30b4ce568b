/** Pipeline time in milliseconds. Every event and timing is read from one clock. */
export interface Clock {
  now(): number;
}

/** Wall time since start: the app, and `talk` without --fast. */
export class RealtimeClock implements Clock {
  private readonly t0 = performance.now();
  now(): number {
    return performance.now() - this.t0;
  }
}

/**
 * Wall time that may jump forward. While the pipeline has engine work in flight the clock runs at
 * wall speed, so engine latencies are real; while it only waits (silence, playback of audio already
 * made), the feeder skips ahead to the next audio frame. Reported times then match a real-time run.
 */
export class FastForwardClock implements Clock {
  private offset = -performance.now();
  now(): number {
    return performance.now() + this.offset;
  }
  skipTo(t: number): void {
    const now = this.now();
    if (t > now) this.offset += t - now;
  }
}
