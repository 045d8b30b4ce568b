/**
 * The level of the loud part of a voice, about the 90th percentile of its 8 ms sub-frame levels:
 * what the input gain brings to its target and what speech boundaries are measured against. One
 * loud or quiet sub-frame barely moves it; a new, louder voice is followed within a few sub-frames.
 */
const STEP_DB = 0.05;
/** Sounds this far below the level (breaths, a tail of room noise) do not pull it down. */
const RANGE_DB = 30;

export class SpeechLevel {
  private db: number | null = null;

  /** dB (of whatever the sub-frames were measured in), null before any. */
  get value(): number | null {
    return this.db;
  }

  /**
   * One sub-frame of the voice: up by half the difference (at least 9 steps) when it is louder,
   * down one step when it is quieter. Nine steps up for one down settle at the 90th percentile.
   */
  push(db: number): void {
    const s = this.db;
    if (s === null) this.db = db;
    else if (db > s) this.db = s + Math.max(9 * STEP_DB, (db - s) / 2);
    else if (db > s - RANGE_DB) this.db = s - STEP_DB;
  }
}
