/**
 * How long the clause under way will sound, for the splitter's length decisions, without running
 * toSpeakable() on it at every word (that made splitting 20 MB of words take minutes).
 *
 * A running upper bound (the sum of speakableWeight over its raw characters) settles most
 * questions; when it cannot, the clause is measured exactly, and the measure plus the bound of
 * what came after it settles the next ones. Once a clause is longer in raw text than a clause
 * should be (markup, a long link), it is measured again only after growing by half, so a
 * hostile reply costs linear time. Also tracks the '[' not yet closed, for not cutting inside a
 * link's label.
 */
import type { RawWindow } from './raw-window';
import { toSpeakable } from './speakable';
import { maySpeak, speakableWeight } from './speech-limits';

export class ClauseLength {
  private start = 0;
  /** Weights summed over [start, pos). */
  private pos = 0;
  private weight = 0;
  private open = 0;
  /** Where the clause was last measured exactly, or -1; its speakable length and the weight then. */
  private measuredAt = -1;
  private measuredLen = 0;
  private measuredWeight = 0;

  constructor(
    private readonly raw: RawWindow,
    /** Raw length past which measuring again waits for the clause to grow by half. */
    private readonly longRaw: number,
  ) {}

  /** A new clause starts at `start`. */
  reset(start: number): void {
    this.start = this.pos = start;
    this.weight = this.open = 0;
    this.measuredAt = -1;
  }

  /** '[' not yet closed in [start, end). */
  openBrackets(end: number): number {
    this.walk(end);
    return this.open;
  }

  /** Whether [start, end) speaks in at most `max` characters; null when not measured this soon. */
  fits(end: number, max: number): boolean | null {
    if (this.bound(end) <= max) return true;
    const len = this.measure(end);
    return len === null ? null : len <= max;
  }

  /** Whether [start, end) speaks at least `min` characters; false when not measured this soon. */
  reaches(end: number, min: number): boolean {
    if (this.bound(end) < min) return false;
    const len = this.measure(end);
    return len !== null && len >= min;
  }

  /** Speakable length of raw [a, b), exactly. */
  speakLen(a: number, b: number): number {
    const text = this.raw.text(a, b);
    return maySpeak(text) ? toSpeakable(text).length : 0;
  }

  private walk(end: number): void {
    if (end < this.pos) this.reset(this.start);
    for (let k = this.pos; k < end; k++) {
      const c = this.raw.code(k);
      this.weight += speakableWeight(c);
      if (c === 91) this.open++; // [
      else if (c === 93 && this.open > 0) this.open--; // ]
    }
    this.pos = Math.max(this.pos, end);
  }

  /** An upper bound on the speakable length of [start, end). */
  private bound(end: number): number {
    this.walk(end);
    if (this.measuredAt < 0 || this.measuredAt > end) return this.weight;
    return Math.min(this.weight, this.measuredLen + (this.weight - this.measuredWeight) + 1);
  }

  private measure(end: number): number | null {
    const span = end - this.start;
    const last = this.measuredAt - this.start;
    if (this.measuredAt >= 0 && last >= this.longRaw && span < last + (last >> 1)) return null;
    this.walk(end);
    const len = this.speakLen(this.start, end);
    this.measuredAt = end;
    this.measuredLen = len;
    this.measuredWeight = this.weight;
    return len;
  }
}
