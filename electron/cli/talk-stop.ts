/**
 * Ctrl+C (SIGINT) and SIGTERM during `talk`: the first stops the run where it is, and what it has
 * done so far is still written (report, output, history); a second ends the process at once. The
 * exit status says which signal it was, as a shell expects (128 + its number).
 */
export const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
export type StopSignal = keyof typeof SIGNAL_EXIT;

/** Thrown out of the feed loop to end it at the next frame. */
export class StopRequested extends Error {
  constructor(readonly signal: StopSignal) {
    super(`stopped by ${signal}`);
  }
}

export class RunStop {
  /** The signal that asked the run to stop, once one did. */
  signal: StopSignal | null = null;
  /** The input is being heard: from now on there is something to save. */
  private running = false;

  constructor(private readonly onStop: (signal: StopSignal) => void) {
    for (const s of Object.keys(SIGNAL_EXIT) as StopSignal[]) process.on(s, () => this.received(s));
  }

  private received(s: StopSignal): void {
    // Before the input plays (models loading) nothing is worth waiting for; a second signal means now.
    if (!this.running || this.signal) process.exit(SIGNAL_EXIT[s]);
    this.signal = s;
    this.onStop(s);
  }

  /** The run has begun: a signal now stops it gracefully. */
  start(): void {
    this.running = true;
  }

  /** Ends the feed loop once a signal has come (called between frames). */
  check(): void {
    if (this.signal) throw new StopRequested(this.signal);
  }

  /** The process's exit status: 0, or the signal's. */
  get exitCode(): number {
    return this.signal ? SIGNAL_EXIT[this.signal] : 0;
  }
}
