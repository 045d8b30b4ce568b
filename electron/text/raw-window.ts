/**
 * A streamed reply's raw text as the clause splitter reads it: only the part from a given offset
 * on stays in one flat string, addressed by offsets into the whole reply.
 *
 * Why not one growing string: V8 flattens a concatenated string the first time it is indexed, so
 * `raw += delta` then `raw[i]` copies the whole reply on every delta, quadratic in its length
 * (a 1 MB reply in 1-character deltas did not finish in minutes). Here each delta copies only the
 * window, which the splitter keeps to the clause under way.
 */
export class RawWindow {
  /** Raw text from `base` on. */
  private buf = '';
  private base = 0;
  private total = 0;
  /** The whole reply for `whole`, joined every few hundred deltas rather than one string per delta. */
  private readonly pending: string[] = [];
  private joined = '';

  /** Length of the whole reply so far. */
  get length(): number {
    return this.total;
  }

  /** The whole raw reply so far. */
  get whole(): string {
    if (this.pending.length > 0) {
      this.joined += this.pending.join('');
      this.pending.length = 0;
    }
    return this.joined;
  }

  /** Appends `delta`; the text before offset `keepFrom` is no longer needed. */
  append(delta: string, keepFrom: number): void {
    this.pending.push(delta);
    if (this.pending.length >= 256) void this.whole;
    const keep = Math.min(Math.max(this.base, keepFrom), this.total);
    this.buf = (keep > this.base ? this.buf.slice(keep - this.base) : this.buf) + delta;
    this.base = keep;
    this.total += delta.length;
  }

  /** The character at raw offset `i` ('' outside the window). */
  ch(i: number): string {
    return this.buf[i - this.base] ?? '';
  }

  code(i: number): number {
    return this.buf.charCodeAt(i - this.base);
  }

  /** Raw text [a, b); both inside the window. */
  text(a: number, b: number): string {
    return this.buf.slice(a - this.base, b - this.base);
  }

  /** For scanners that index the window themselves: the flat text and the raw offset it starts at. */
  view(): { buf: string; base: number } {
    return { buf: this.buf, base: this.base };
  }
}
