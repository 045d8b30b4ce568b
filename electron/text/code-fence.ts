/**
 * One fenced code block (``` or ~~~) as the reply streams in: where it closes, and where its
 * source ends. Every character is examined once, whatever the deltas, so a block of any size,
 * even one long line in one-character deltas, costs linear time and needs no text kept behind
 * the scan.
 */
import { isSpaceCode } from './speech-limits';

/** Where a line of the block stands on the way to being a closing fence. */
type LineState = 'indent' | 'marker' | 'trail' | 'dead';

export class CodeFence {
  /** Next raw offset to examine. */
  private pos: number;
  /** Still on the opening line (the info string), which never closes the block. */
  private opening = true;
  private line: LineState = 'indent';
  private run = 0;
  /** Just past the last non-space character examined: where the block's source ends. */
  private solidEnd: number;

  /**
   * @param char the marker character, '`' or '~'
   * @param len the opening marker's length; a closing marker is at least as long
   * @param start raw offset of the opening marker
   */
  constructor(
    private readonly char: string,
    private readonly len: number,
    readonly start: number,
  ) {
    this.pos = start + len;
    this.solidEnd = start + len;
  }

  /** The first raw offset the scan still needs. */
  get next(): number {
    return this.pos;
  }

  /**
   * Examines raw text up to `n` (`buf` holds raw text from offset `base`). Returns the offset of
   * the newline that ends the closing fence line, or -1 when the block is still open.
   */
  scan(buf: string, base: number, n: number): number {
    for (let k = this.pos; k < n; k++) {
      const code = buf.charCodeAt(k - base);
      if (code === 10) {
        const closes = !this.opening && (this.line === 'trail' || (this.line === 'marker' && this.run >= this.len));
        if (closes) {
          this.pos = k;
          return k;
        }
        this.opening = false;
        this.line = 'indent';
        this.run = 0;
        continue;
      }
      if (!isSpaceCode(code)) this.solidEnd = k + 1;
      if (!this.opening) this.step(buf[k - base]!);
    }
    this.pos = n;
    return -1;
  }

  /** Where the block's source ends (trailing whitespace excluded) once it closes at `end`. */
  sourceEnd(): number {
    return this.solidEnd;
  }

  /** A closing line is [ \t]* then a run of the block's marker (long enough), then [ \t\r]*. */
  private step(c: string): void {
    switch (this.line) {
      case 'indent':
        if (c === this.char) {
          this.line = 'marker';
          this.run = 1;
        } else if (c !== ' ' && c !== '\t') this.line = 'dead';
        break;
      case 'marker':
        if (c === this.char) this.run++;
        else if (c === ' ' || c === '\t' || c === '\r') this.line = this.run >= this.len ? 'trail' : 'dead';
        else this.line = 'dead';
        break;
      case 'trail':
        if (c !== ' ' && c !== '\t' && c !== '\r') this.line = 'dead';
        break;
      case 'dead':
        break;
    }
  }
}
